/** `compaction status`: body in ../commands/compaction.ts. */
import type { Command } from '@commander-js/extra-typings';
import { complete } from './action';
import { identifier } from './parsers';

export function registerCompaction(program: Command): void {
  const compaction = program
    .command('compaction')
    .description('inspect the compactor (hour buckets -> rollups)');

  compaction
    .command('status')
    .description(
      'per API: the last compacted hour and how many closed hours wait for the compactor; ' +
        'and the compaction queue counts',
    )
    .option('--api <apiId>', 'only this API', identifier)
    .option('--json', 'one JSON object instead of a table')
    .action(async (options, command) => {
      const { compactionStatusCommand } = await import('../commands/compaction');
      await complete(command, () =>
        compactionStatusCommand({ api: options.api, json: options.json === true }),
      );
    });
}
