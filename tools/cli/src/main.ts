/**
 * Operator CLI: `npm run cli -- <command> [args]`. Each command lives in ./commands/<name>.ts
 * and exports `run(args): Promise<number>` (the exit code). Loaded lazily so that one
 * command's dependencies do not slow down another.
 */
type Command = { run(args: string[]): Promise<number>; usage: string };

const commands: Record<string, () => Promise<Command>> = {
  'root-key': () => import('./commands/root-key'),
  api: () => import('./commands/api'),
  produce: () => import('./commands/produce'),
  compaction: () => import('./commands/compaction'),
  backfill: () => import('./commands/backfill'),
  rebuild: () => import('./commands/rebuild'),
  query: () => import('./commands/query'),
  token: () => import('./commands/token'),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const load = name === undefined ? undefined : commands[name];
  if (!load) {
    const usages = await Promise.all(Object.values(commands).map(async (l) => (await l()).usage));
    process.stderr.write(`usage: npm run cli -- <command>\n\n${usages.join('\n')}\n`);
    return name === undefined || name === 'help' || name === '--help' ? 0 : 2;
  }
  return (await load()).run(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
