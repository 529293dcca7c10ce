/** `root-key create|revoke`: the operator interface for root keys. Bodies: ../commands/root-key.ts. */
import type { Command } from '@commander-js/extra-typings';
import { complete } from './action';
import { collect, identifier } from './parsers';

export function registerRootKey(program: Command): void {
  const rootKey = program
    .command('root-key')
    .description('create and revoke root keys (the credentials of GET /v1/analytics.getVerifications)');

  rootKey
    .command('create')
    .description(
      'create a root key for a workspace; prints the key ALONE on the first line of stdout ' +
        '(it is shown only this once: Redis keeps its SHA-256) and its key id (that SHA-256, not a secret) on stderr',
    )
    .requiredOption('--workspace <id>', 'workspace the key belongs to', identifier)
    .requiredOption(
      '--permission <perm>',
      'permission, repeatable: api.*.read_api (every API of the workspace) or api.<apiId>.read_api',
      collect(String),
    )
    .addHelpText(
      'after',
      '\nExample:\n  npm run cli -- root-key create --workspace ws_demo --permission api.*.read_api',
    )
    .action(async (options, command) => {
      const { createRootKeyCommand } = await import('../commands/root-key');
      await complete(command, () =>
        createRootKeyCommand({ workspace: options.workspace, permissions: options.permission }),
      );
    });

  rootKey
    .command('revoke')
    .description(
      'revoke a root key: requests with it (and its read tokens) get 401 within 1 s (QUERY_AUTH_CACHE_MS). ' +
        'Give the key id printed at creation, or pipe the key itself to --key-stdin: ' +
        'never the key as an argument, which would show in ' +
        'the process list and the shell history',
    )
    .argument('[key-id]', 'the key id (64 hex digits, printed at creation)')
    .option('--key-stdin', 'read the root key itself (vak_...) from the first line of stdin')
    .addHelpText('after', '\nExit 1 when no such key exists.')
    .action(async (keyId, options, command) => {
      const { revokeRootKeyCommand } = await import('../commands/root-key');
      await complete(command, () => revokeRootKeyCommand({ keyId, keyStdin: options.keyStdin }));
    });
}
