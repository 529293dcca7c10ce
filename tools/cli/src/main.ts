/** Operator CLI: `npm run cli -- <command> [options]`; the commands are in ./program.ts. */
import { redactSecrets } from '@va/config';
import { runCli } from './program';

// Every message goes to stderr, and any of them may quote a configured URL (a connection error, a
// client's): one filter here keeps a URL's password (REDIS_URL's) out of all of them. stdout carries
// the commands' data (keys, tokens, JSON) and is left alone.
const writeStderr = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
  writeStderr(
    redactSecrets(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')),
    ...rest,
  )) as typeof process.stderr.write;

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
