/** `produce`: body in ../commands/produce.ts. */
import type { Command } from '@commander-js/extra-typings';
import { complete } from './action';
import { MESSAGE_KEYS } from '@va/contracts';
import { nonNegativeInt, oneOf, positiveInt } from './parsers';

export function registerProduce(program: Command): void {
  program
    .command('produce')
    .description(
      'write generated verification events (Zipf-like APIs and keys, 0-3 tags, every outcome) to Kafka, ' +
        'for load tests and demos',
    )
    .requiredOption('--events <n>', 'how many events', nonNegativeInt)
    .option('--rate <perSecond>', 'events per second (0: as fast as possible)', nonNegativeInt, 0)
    .option('--apis <n>', 'distinct APIs', positiveInt, 10)
    .option('--keys <n>', 'distinct keys', nonNegativeInt, 1000)
    .option('--identities <n>', 'distinct identities', nonNegativeInt, 200)
    .option('--seed <n>', 'generator seed, for a reproducible set (default: a fresh one)', nonNegativeInt)
    .option('--start-ms <unixMs>', 'historical times from here instead of now', nonNegativeInt)
    .option('--span-ms <ms>', 'with --start-ms: times spread over this span', nonNegativeInt, 3_600_000)
    .option('--topic <topic>', 'topic to write to (default: the live topic, KAFKA_TOPIC)')
    .option(
      '--key <key>',
      `message key: ${MESSAGE_KEYS.join(' or ')} (spreads each API over the partitions by key)`,
      oneOf(MESSAGE_KEYS),
      'apiId' as const,
    )
    .addHelpText(
      'after',
      '\nExample:\n  npm run cli -- produce --events 100000 --rate 5000 --apis 5 --keys 500 --identities 100',
    )
    .action(async (options, command) => {
      const { produceCommand } = await import('../commands/produce');
      await complete(command, () => produceCommand(options));
    });
}
