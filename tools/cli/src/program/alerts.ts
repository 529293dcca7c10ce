/**
 * `alerts rules|endpoints|deliveries|replay`: usage alerts (docs/alerts.md); bodies in ../commands/alerts.ts.
 * Rules, endpoints and the delivery log go through the query service with a root key (ANALYTICS_TOKEN or
 * --token-stdin, never an argument); replay queues webhooks in Redis directly (REDIS_URL).
 */
import { Option, type Command } from '@commander-js/extra-typings';
import { ALERT_PERIODS, OUTCOMES } from '@va/contracts';
import { complete } from './action';
import { commaList, identifier, oneOf, positiveInt, time } from './parsers';

export const SCOPE_KINDS = ['api', 'identity', 'key', 'each-identity', 'each-key'] as const;

/** A subcommand that calls the query service, with the options every such command takes. */
function serviceCommand(parent: Command, name: string) {
  return parent
    .command(name)
    .option('--url <baseUrl>', 'the query service (default QUERY_URL)')
    .option(
      '--token-stdin',
      'read the root key (api.*.manage_alerts, or api.<apiId>.manage_alerts for one API) from the first line ' +
        'of stdin (default: ANALYTICS_TOKEN)',
    )
    .addOption(
      new Option(
        '--token <rootKey>',
        'refused: unsafe, a secret in argv shows in ps and the shell history',
      ).hideHelp(),
    )
    .option('--json', 'print the answer as JSON');
}

export function registerAlerts(program: Command): void {
  const alerts = program
    .command('alerts')
    .description('usage alerts: rules, webhook endpoints, the delivery log and replays (docs/alerts.md)');

  const rules = alerts.command('rules').description("create, list and delete an API's alert rules");
  serviceCommand(rules, 'create')
    .description('create a rule: every level the period count reaches is one webhook; prints the rule id')
    .requiredOption('--api <apiId>', 'the API whose verifications are counted', identifier)
    .addOption(
      new Option('--scope <kind>', 'whose count: the whole API, one identity or key, or each of them')
        .choices(SCOPE_KINDS)
        .makeOptionMandatory(),
    )
    .option('--external-id <id>', 'the identity of --scope identity')
    .option('--key-id <keyId>', 'the key of --scope key', identifier)
    .option(
      '--outcome <outcomes>',
      'only these outcomes count (repeat or comma-separate; default all)',
      commaList(oneOf(OUTCOMES)),
    )
    .option(
      '--tag <tags>',
      'only verifications holding all of these tags count (repeat or comma-separate)',
      commaList(),
    )
    .requiredOption('--period <period>', 'day or month', oneOf(ALERT_PERIODS))
    .option(
      '--time-zone <zone>',
      "the calendar of the period, an IANA name (America/New_York); default: the API's default zone, kept on the rule",
    )
    .requiredOption(
      '--level <counts>',
      'the levels, 1 to 10 counts (repeat or comma-separate)',
      commaList(positiveInt),
    )
    .action(async (options, command) => {
      const { createRuleCommand } = await import('../commands/alerts');
      await complete(command, () => createRuleCommand(options));
    });
  serviceCommand(rules, 'list')
    .description("list an API's rules, oldest first")
    .requiredOption('--api <apiId>', 'the API', identifier)
    .action(async (options, command) => {
      const { listRulesCommand } = await import('../commands/alerts');
      await complete(command, () => listRulesCommand(options));
    });
  serviceCommand(rules, 'delete')
    .description('delete a rule (crossings it already found are still delivered)')
    .requiredOption('--api <apiId>', 'the API of the rule', identifier)
    .requiredOption('--rule <ruleId>', 'the rule id')
    .action(async (options, command) => {
      const { deleteRuleCommand } = await import('../commands/alerts');
      await complete(command, () => deleteRuleCommand(options));
    });

  const endpoints = alerts.command('endpoints').description("the workspace's webhook endpoints");
  serviceCommand(endpoints, 'create')
    .description(
      'register a webhook URL; prints its signing secret (whsec_…) alone on the first line of stdout, shown ' +
        'this once, and its id on stderr',
    )
    .argument('<webhookUrl>', 'the http(s) URL the webhooks are POSTed to')
    .option(
      '--rule <ruleIds>',
      'only these rules (repeat or comma-separate; default every rule of the workspace)',
      commaList(),
    )
    .action(async (webhookUrl, options, command) => {
      const { createEndpointCommand } = await import('../commands/alerts');
      await complete(command, () => createEndpointCommand({ ...options, webhookUrl }));
    });
  serviceCommand(endpoints, 'list')
    .description("list the workspace's endpoints (never their secrets)")
    .action(async (options, command) => {
      const { listEndpointsCommand } = await import('../commands/alerts');
      await complete(command, () => listEndpointsCommand(options));
    });
  serviceCommand(endpoints, 'delete')
    .description('delete an endpoint: nothing more is sent to it, retries included')
    .argument('<endpointId>', 'the endpoint id (ep_…)')
    .action(async (endpointId, options, command) => {
      const { deleteEndpointCommand } = await import('../commands/alerts');
      await complete(command, () => deleteEndpointCommand({ ...options, endpointId }));
    });

  serviceCommand(alerts, 'deliveries')
    .description("an API's webhook attempts, newest first: alert, endpoint, attempt, outcome, status, error")
    .requiredOption('--api <apiId>', 'the API', identifier)
    .option('--alert <alertId>', 'only the attempts of this alert')
    .option('--limit <n>', 'at most this many (default 100, at most 1000)', positiveInt)
    .action(async (options, command) => {
      const { deliveriesCommand } = await import('../commands/alerts');
      await complete(command, () => deliveriesCommand(options));
    });

  alerts
    .command('replay')
    .description(
      'send crossings again to the endpoints subscribed to their rules, with the same webhook-id: one alert ' +
        '(--alert) or every crossing detected from --since to --until (kept 30 days). Writes to Redis (REDIS_URL); ' +
        'the compactor sends them',
    )
    .requiredOption('--api <apiId>', 'the API of the crossings', identifier)
    .option('--alert <alertId>', 'the alert id (webhook-id)')
    .option('--since <time>', 'unix ms or ISO 8601: detected at or after', time)
    .option('--until <time>', 'unix ms or ISO 8601: detected at or before (default now)', time)
    .action(async (options, command) => {
      const { replayCommand } = await import('../commands/alerts');
      await complete(command, () => replayCommand(options));
    });
}
