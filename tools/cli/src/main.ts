/** Operator CLI: `npm run cli -- <command> [options]` or `npx va`; the commands are in ./program.ts. */
import path from 'node:path';
import { redactSecrets } from '@va/config';
import { DEFAULT_NAME, runCli } from './program';

// Every message goes to stderr, and any of them may quote a configured URL (a connection error, a
// client's): one filter here keeps a URL's password (REDIS_URL's) out of all of them. stdout carries
// the commands' data (keys, tokens, JSON) and is left alone.
const writeStderr = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
  writeStderr(
    redactSecrets(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')),
    ...rest,
  )) as typeof process.stderr.write;

// Started through the package's bin (`npx va`, node_modules/.bin/va): its usage lines say `va`.
const name = path.basename(process.argv[1] ?? '') === 'va' ? 'va' : DEFAULT_NAME;

runCli(process.argv.slice(2), undefined, name).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
