/** `token create|revoke`: end-user read tokens; bodies in ../commands/token.ts. */
import { Option, type Command } from '@commander-js/extra-typings';
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
        'and print it alone on the first line of stdout (its token id, for revoking, on stderr)',
    )
    .requiredOption('--api <apiId>', 'the API the token may read', identifier)
    .requiredOption('--external-id <id>', 'the end user (identity externalId) the token is fixed to')
    .option('--expires-in <seconds>', 'lifetime (default 15 min, at most 24 h)', nonNegativeInt)
    .option('--url <baseUrl>', 'the query service (default QUERY_URL)')
    .option(
      '--token-stdin',
      'read the root key (api.*.create_read_token or api.<apiId>.create_read_token) from the first line ' +
        'of stdin (default: ANALYTICS_TOKEN)',
    )
    // Refused with a message (a secret in argv shows in ps and the shell history), not unknown.
    .addOption(
      new Option(
        '--token <rootKey>',
        'refused: unsafe, a secret in argv shows in ps and the shell history',
      ).hideHelp(),
    )
    .action(async (options, command) => {
      const { createTokenCommand } = await import('../commands/token');
      await complete(command, () => createTokenCommand(options));
    });

  token
    .command('revoke')
    .description(
      'refuse a read token within 1 s (QUERY_AUTH_CACHE_MS; Redis deny-list until it expires). ' +
        'Give its token id (printed by `token create`, the `jti` of the token), ' +
        'or pipe the token itself to --token-stdin: ' +
        'never the token as an argument, which would show in the process list and the shell history',
    )
    .argument('[token-id]', 'the token id (jti: 16-64 of A-Z a-z 0-9 _ -)')
    .option('--token-stdin', 'read the read token itself from the first line of stdin')
    .action(async (tokenId, options, command) => {
      const { revokeTokenCommand } = await import('../commands/token');
      await complete(command, () => revokeTokenCommand({ tokenId, tokenStdin: options.tokenStdin }));
    });
}
