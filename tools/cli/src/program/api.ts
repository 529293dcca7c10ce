/** `api register|update`: bodies in ../commands/api.ts. */
import type { Command } from '@commander-js/extra-typings';
import { complete } from './action';
import { identifier } from './parsers';

const TIME_ZONE_HELP =
  "the API's default time zone, an IANA name (America/New_York): the calendar of its queries without " +
  'timeZone and of its new alert rules (default UTC)';

const BILLING_ZONE_HELP =
  'declare a billing zone, an IANA name (Asia/Kolkata), repeatable, at most 3 per API, never removed: its ' +
  'local days and months are counted exactly from then on (docs/api.md#billing-zones)';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerApiCommands(program: Command): void {
  const api = program.command('api').description('manage the APIs of a workspace');

  api
    .command('register')
    .description(
      'register an API to a workspace before its first event (idempotent; exit 1 when the API ' +
        'already belongs to another workspace: an API never moves)',
    )
    .requiredOption('--workspace <id>', 'workspace that owns the API', identifier)
    .requiredOption('--api <apiId>', 'the API to register', identifier)
    .option('--time-zone <zone>', TIME_ZONE_HELP)
    .option('--billing-zone <zone>', BILLING_ZONE_HELP, collect, [] as string[])
    .addHelpText(
      'after',
      '\nExample:\n  npm run cli -- api register --workspace ws_demo --api api_demo --time-zone America/New_York' +
        ' --billing-zone America/New_York --billing-zone Asia/Kolkata',
    )
    .action(async (options, command) => {
      const { registerApiCommand } = await import('../commands/api');
      await complete(command, () => registerApiCommand(options));
    });

  api
    .command('update')
    .description(
      "change a registered API's default time zone (queries follow within QUERY_AUTH_CACHE_MS; " +
        'existing alert rules keep theirs) and/or declare billing zones; exit 1 when the API is not ' +
        'registered or has no room for a billing zone',
    )
    .requiredOption('--api <apiId>', 'the API', identifier)
    .option('--time-zone <zone>', TIME_ZONE_HELP)
    .option('--billing-zone <zone>', BILLING_ZONE_HELP, collect, [] as string[])
    .addHelpText(
      'after',
      '\nExamples:\n  npm run cli -- api update --api api_demo --time-zone Asia/Kolkata\n' +
        '  npm run cli -- api update --api api_demo --billing-zone Europe/Berlin',
    )
    .action(async (options, command) => {
      const { updateApiCommand } = await import('../commands/api');
      await complete(command, () => updateApiCommand(options));
    });
}
