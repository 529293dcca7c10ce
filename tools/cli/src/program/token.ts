/** `token create|revoke`: end-user read tokens; bodies in ../commands/token.ts. */
import type { Command } from '@commander-js/extra-typings';
import { complete } from './action';
import { identifier, nonNegativeInt } from './parsers';

export function registerToken(program: Command): void {
  const token = program
    .command('token')
    .description('mint and revoke end-user read tokens (read one API for one externalId)');

  token
    .command('create')
    .description(
      'mint a read token for one end user through the query service (POST /v1/analytics.createReadToken) ' +
        'and print it alone on the first line of stdout',
    )
    .requiredOption('--api <apiId>', 'the API the token may read', identifier)
    .requiredOption('--external-id <id>', 'the end user (identity externalId) the token is fixed to')
    .option('--expires-in <seconds>', 'lifetime (default 15 min, at most 24 h)', nonNegativeInt)
    .option('--url <baseUrl>', 'the query service (default QUERY_URL)')
    .option(
      '--token <rootKey>',
      'root key with api.*.create_read_token or api.<apiId>.create_read_token (default ANALYTICS_TOKEN)',
    )
    .action(async (options, command) => {
      const { createTokenCommand } = await import('../commands/token');
      await complete(command, () => createTokenCommand(options));
    });

  token
    .command('revoke')
    .description('refuse a read token from the next request on (Redis deny-list until it expires)')
    .argument('<read-token>', 'the read token')
    .action(async (readToken, _options, command) => {
      const { revokeTokenCommand } = await import('../commands/token');
      await complete(command, () => revokeTokenCommand(readToken));
    });
}
