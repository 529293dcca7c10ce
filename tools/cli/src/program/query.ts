/** `query`: body in ../commands/query.ts. */
import { Option, type Command } from '@commander-js/extra-typings';
import type { GetVerificationsParams } from '@va/client';
import { GROUP_BY, ORDER, ORDER_BY } from '@va/contracts';
import { complete } from './action';
import { commaList, identifier, oneOf, positiveInt, time } from './parsers';

export function registerQuery(program: Command): void {
  program
    .command('query')
    .description(
      'ask GET /v1/analytics.getVerifications and print the datapoints as JSON on stdout ' +
        '(precision and request id on stderr); the service validates the parameters again and says why',
    )
    .requiredOption('--api <apiId>', 'the API to read', identifier)
    .option('--external-id <id>', 'only verifications of identities with this externalId')
    .option('--key <keyId>', 'only these keys (repeatable, or comma-separated)', commaList())
    .option(
      '--tag <tag>',
      'only verifications carrying all of these tags (repeatable, or comma-separated)',
      commaList(),
    )
    .addOption(
      new Option(
        '--group-by <g>',
        `group by: ${GROUP_BY.join(', ')} (repeatable, or comma-separated)`,
      ).argParser(commaList(oneOf(GROUP_BY))),
    )
    .option('--start <time>', 'from this hour (unix ms or ISO 8601)', time)
    .option('--end <time>', 'through this hour, included (unix ms or ISO 8601; default now)', time)
    .option('--limit <n>', 'keep the first n rows', positiveInt)
    .addOption(new Option('--order-by <field>', 'sort field').choices(ORDER_BY))
    .addOption(new Option('--order <order>', 'sort order (default asc)').choices(ORDER))
    .option('--url <baseUrl>', 'the query service (default QUERY_URL, http://127.0.0.1:$PORT)')
    .option(
      '--token-stdin',
      'read the root key or read token from the first line of stdin (default: ANALYTICS_TOKEN)',
    )
    // Refused with a message (a secret in argv shows in ps and the shell history), not unknown.
    .addOption(
      new Option(
        '--token <token>',
        'refused: unsafe, a secret in argv shows in ps and the shell history',
      ).hideHelp(),
    )
    .option('--timeout <ms>', 'deadline of the call, retries included', positiveInt)
    .addHelpText(
      'after',
      '\nExit 1 for an error answer (its detail and request id on stderr).\n\nExample:\n' +
        '  npm run cli -- query --api api_demo --start 2026-01-01 --group-by day,tag   # ANALYTICS_TOKEN set\n' +
        '  pass show va/root-key | npm run cli -- query --api api_demo --token-stdin',
    )
    .action(async (o, command) => {
      const params: GetVerificationsParams = { apiId: o.api };
      if (o.externalId !== undefined) params.externalId = o.externalId;
      if (o.key) params.keyId = o.key;
      if (o.tag) params.tag = o.tag;
      if (o.groupBy) params.groupBy = o.groupBy;
      if (o.start !== undefined) params.start = o.start;
      if (o.end !== undefined) params.end = o.end;
      if (o.limit !== undefined) params.limit = o.limit;
      if (o.orderBy !== undefined) params.orderBy = o.orderBy;
      if (o.order !== undefined) params.order = o.order;
      const { queryCommand } = await import('../commands/query');
      await complete(command, () =>
        queryCommand({
          params,
          url: o.url,
          token: o.token,
          tokenStdin: o.tokenStdin,
          timeoutMs: o.timeout,
        }),
      );
    });
}
