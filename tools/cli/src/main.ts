/** Operator CLI: `npm run cli -- <command> [options]` or `npx va`; the commands are in ./program.ts. */
import path from 'node:path';
import { DEFAULT_NAME, runCli } from './program';

// Started through the package's bin (`npx va`, node_modules/.bin/va): its usage lines say `va`.
const name = path.basename(process.argv[1] ?? '') === 'va' ? 'va' : DEFAULT_NAME;

runCli(process.argv.slice(2), undefined, name).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
