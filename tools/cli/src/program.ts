/**
 * The operator CLI's command tree (commander). Each command's options and help live in
 * ./program/<command>.ts; its body, a function of typed options returning the exit code, in
 * ./commands/<command>.ts, imported only when the command runs (one command's dependencies do not
 * slow down another, nor `--help`).
 *
 * Exit codes: 0 success and --help; 2 usage errors (unknown command or option, bad value, with the
 * usage on stderr); others are the command's own (1 failed, 3/4 see the command's help).
 */
import { Command, CommanderError } from '@commander-js/extra-typings';
import { exitCodeOf, USAGE_EXIT_CODE } from './program/action';
import { registerAlerts } from './program/alerts';
import { registerApiCommands } from './program/api';
import { registerBackfill } from './program/backfill';
import { registerCompaction } from './program/compaction';
import { registerDemo } from './program/demo';
import { registerProduce } from './program/produce';
import { registerQuery } from './program/query';
import { registerRebuild } from './program/rebuild';
import { registerRootKey } from './program/root-key';
import { registerToken } from './program/token';

/** Adds one command (and its subcommands) to the program: the plug-in point for new commands. */
export type Registration = (program: Command) => void;

const registrations: readonly Registration[] = [
  registerDemo,
  registerRootKey,
  registerApiCommands,
  registerProduce,
  registerBackfill,
  registerRebuild,
  registerCompaction,
  registerQuery,
  registerToken,
  registerAlerts,
];

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

const stdio: Output = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** How the usage lines name the program: `npm run cli --`, or `va` when started as the package's bin. */
export const DEFAULT_NAME = 'npm run cli --';

/** A fresh program (commander keeps parse state in it, so one per run). */
export function buildProgram(output: Output = stdio, name = DEFAULT_NAME): Command {
  // Settings made before .command() are inherited by every subcommand.
  const program = new Command()
    .name(name)
    .description(
      'Operator CLI of the verification analytics service. Reads REDIS_URL, REDIS_KEY_PREFIX, KAFKA_BROKERS ' +
        'and the other variables of the README configuration table from the environment.',
    )
    .configureOutput({ writeOut: output.out, writeErr: output.err })
    .exitOverride()
    .showHelpAfterError()
    .helpOption('-h, --help', 'show help for the command');
  for (const register of registrations) register(program);
  program.addHelpText(
    'after',
    `\nEvery command answers --help (or -h), e.g. \`${name} root-key create --help\`.`,
  );
  return program;
}

/** Parses argv (without node and script), runs the command, resolves with the exit code. */
export async function runCli(
  argv: readonly string[],
  output: Output = stdio,
  name = DEFAULT_NAME,
): Promise<number> {
  const program = buildProgram(output, name);
  if (argv.length === 0) {
    // No command: the overview on stderr, exit 0, as before commander.
    program.outputHelp({ error: true });
    return 0;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
    throw err;
  }
  return exitCodeOf(program);
}
