/** `demo`: body in ../commands/demo.ts. */
import type { Command } from '@commander-js/extra-typings';
import { complete } from './action';
import { identifier, nonNegativeInt, positiveInt } from './parsers';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'register a demo API and produce a small realistic set of its events (5 keys, 3 customers, plan and ' +
        'region tags, every common outcome) over the last hours; waits until the ingest worker counted them',
    )
    .option('--workspace <id>', 'workspace of the demo API', identifier, 'ws_demo')
    .option('--api <apiId>', 'the demo API', identifier, 'api_demo')
    .option('--events <n>', 'how many events', positiveInt, 2000)
    .option('--hours <n>', 'spread over this many hours before now', positiveInt, 24)
    .option('--seed <n>', 'seed of the data set', nonNegativeInt, 1)
    .option('--timeout <seconds>', 'how long to wait for the ingest worker', positiveInt, 120)
    .addHelpText(
      'after',
      '\nExit 3 when no ingest worker counted the events in time (is `npm start` running?).\n\n' +
        'Example (the README quick start):\n  npm run cli -- demo',
    )
    .action(async (options, command) => {
      const { demoCommand } = await import('../commands/demo');
      await complete(command, () => demoCommand({ ...options, timeoutMs: options.timeout * 1000 }));
    });
}
