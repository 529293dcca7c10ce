/**
 * Runs a command body from a commander action and records its exit code on the root program
 * (read by runCli). A UsageError from the body becomes commander's own error: message and usage on
 * stderr, exit 2.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../usage-error';

export const USAGE_EXIT_CODE = 2;

const exitCodes = new WeakMap<CommandUnknownOpts, number>();

function rootOf(command: CommandUnknownOpts): CommandUnknownOpts {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

export async function complete(command: CommandUnknownOpts, body: () => Promise<number>): Promise<void> {
  let code: number;
  try {
    code = await body();
  } catch (err) {
    if (err instanceof UsageError) command.error(`error: ${err.message}`, { exitCode: USAGE_EXIT_CODE });
    throw err;
  }
  exitCodes.set(rootOf(command), code);
}

/** The exit code of the body that ran under this program (0 when none ran). */
export const exitCodeOf = (program: CommandUnknownOpts): number => exitCodes.get(program) ?? 0;
