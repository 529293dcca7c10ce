/** `rebuild` and its subcommands: bodies in ../commands/rebuild.ts, the work in ../rebuild/. */
import type { Command } from '@commander-js/extra-typings';
import { complete } from './action';

export function registerRebuild(program: Command): void {
  const rebuild = program
    .command('rebuild')
    .description(
      'recount every counter from the live and backfill topics into a new generation while queries keep ' +
        'reading the current one, then switch to it atomically',
    )
    .option(
      '--since <date>',
      'ISO date or unix ms: recount only from that month on and carry older periods over ' +
        '(needed once Kafka has deleted older records)',
    )
    .option('--yes', 'start without asking for confirmation (required when not on a terminal)')
    .option(
      '--json',
      'progress as JSON lines on stdout (phase, done, total, eventsPerSecond, etaSeconds, partitions) ' +
        'instead of bars on a terminal or text lines elsewhere',
    )
    .addHelpText(
      'after',
      '\nExit 4 when the rebuild was aborted (`rebuild abort` from another shell).\n\n' +
        'Example:\n  npm run cli -- rebuild --since 2026-01-01 --yes',
    )
    .action(async (options, command) => {
      const { rebuildCommand } = await import('../commands/rebuild');
      await complete(command, () =>
        rebuildCommand({ since: options.since, yes: options.yes === true, json: options.json === true }),
      );
    });

  rebuild
    .command('status')
    .description('phase, owner and heartbeat of the rebuild; per partition: offsets replayed, of, watermarks')
    .option('--json', 'one JSON object instead of a table')
    .action(async (options, command) => {
      const { rebuildStatusCommand } = await import('../commands/rebuild');
      await complete(command, () => rebuildStatusCommand({ json: options.json === true }));
    });

  rebuild
    .command('abort')
    .description('drop the new generation; the current one stays untouched')
    .action(async (_options, command) => {
      const { rebuildAbortCommand } = await import('../commands/rebuild');
      await complete(command, () => rebuildAbortCommand());
    });

  rebuild
    .command('resume')
    .description('continue a rebuild after its process died (or was stopped with Ctrl-C)')
    .option('--force', 'take over even though another process seems to run it (its heartbeat is recent)')
    .option('--json', 'progress as JSON lines on stdout (as `rebuild --json`)')
    .action(async (options, command) => {
      const { rebuildResumeCommand } = await import('../commands/rebuild');
      await complete(command, () =>
        rebuildResumeCommand({ force: options.force === true, json: options.json === true }),
      );
    });
}
