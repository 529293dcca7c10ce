/**
 * Where the CLI takes key material from: the environment (ANALYTICS_TOKEN) or the first line of stdin,
 * never a command-line argument, which every user of the machine can read in the process list and
 * which the shell keeps in its history (docs/read-tokens.md, README "Operations").
 */
import { UsageError } from '../usage-error';

/** The message for a secret given as an argument; it names the option, never the value. */
export const secretArgumentRefused = (option: string, instead: string): string =>
  `${option} is not accepted: a secret on the command line shows in the process list and the shell history; ${instead}`;

/** The first line of stdin, trimmed; a usage error when there is none. */
export async function secretFromStdin(what: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/, 1)[0]!.trim();
  if (line === '') throw new UsageError(`no ${what} on stdin`);
  return line;
}

export interface TokenSource {
  /** --token-stdin was given. */
  tokenStdin?: boolean | undefined;
  /** The refused --token option was given (its value is never looked at). */
  token?: string | undefined;
}

/** The root key or read token of a command that calls the query service: --token-stdin, else ANALYTICS_TOKEN. */
export async function analyticsToken(
  source: TokenSource,
  fromEnvironment: string | undefined,
): Promise<string> {
  if (source.token !== undefined) {
    throw new UsageError(secretArgumentRefused('--token', 'set ANALYTICS_TOKEN or pipe it to --token-stdin'));
  }
  if (source.tokenStdin) return secretFromStdin('token');
  if (fromEnvironment === undefined)
    throw new UsageError('set ANALYTICS_TOKEN or pipe the token to --token-stdin');
  return fromEnvironment;
}
