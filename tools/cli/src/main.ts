/** Operator CLI: `npm run cli -- <command> [options]`; the commands are in ./program.ts. */
import { runCli } from './program';

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
