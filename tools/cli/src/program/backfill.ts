/** `backfill`: body in ../commands/backfill.ts. */
import type { Command } from '@commander-js/extra-typings';
import { complete } from './action';
import { MESSAGE_KEYS } from '@va/contracts';
import { oneOf, positiveInt } from './parsers';

export function registerBackfill(program: Command): void {
  program
    .command('backfill')
    .description(
      "replay old events into the counters without double counting: checks every event with the ingest worker's " +
        'decoder, produces the valid ones to the backfill topic and the invalid ones to the DLQ, then waits until ' +
        'the ingest worker has counted them and prints a summary (read, produced, counted, dead-lettered by reason)',
    )
    .option('--file <events.ndjson>', 'a file with one event (JSON) per line')
    .option('--from-topic <topic>', 'or: every retained record of another Kafka topic')
    .option('--timeout <seconds>', 'how long to wait for the ingest worker', positiveInt, 600)
    .option('--no-wait', 'do not wait for the ingest worker to count the events')
    .option('--json', 'print the summary as one JSON object')
    .option(
      '--key <key>',
      `message key of the produced events: ${MESSAGE_KEYS.join(' or ')} (spreads each API over the partitions)`,
      oneOf(MESSAGE_KEYS),
      'apiId' as const,
    )
    .addHelpText(
      'after',
      '\nExactly one of --file and --from-topic. Exit 3 when the ingest worker did not count everything in time\n' +
        '(no worker running, or the timeout): the events stay in the backfill topic and are counted later.\n' +
        'A --file backfill counts each line once: run it again after a crash and it continues where it stopped;\n' +
        'run it again after the file grew and it sends only the new lines (progress in Redis under\n' +
        '<prefix>:backfill:<sha256 of the first non-blank line>, with a hash chain over the lines sent).\n' +
        'A file whose sent lines were edited is refused (exit 2, naming the record), and so is other content at\n' +
        'a path whose backfill is unfinished. Bytes after the last newline are a line still being written: not\n' +
        'sent (exit 4 after the summary; run again once the file is complete). docs/rebuild.md has the rule.\n\n' +
        'Example:\n  npm run cli -- backfill --file events.ndjson',
    )
    .action(async (options, command) => {
      const { backfillCommand } = await import('../commands/backfill');
      await complete(command, () =>
        backfillCommand({
          file: options.file,
          fromTopic: options.fromTopic,
          timeoutMs: options.timeout * 1000,
          wait: options.wait,
          json: options.json === true,
          key: options.key,
        }),
      );
    });
}
