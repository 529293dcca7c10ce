/**
 * `root-key create`: prints the new key alone on the first line of stdout (it is shown only this
 * once; Redis keeps its hash) and its id (that hash) on stderr. `root-key revoke <id>` (or the key on
 * stdin): requests with the key get 401 within QUERY_AUTH_CACHE_MS (at most 1 s); the key itself is
 * never taken as an argument (secret-input.ts). Options are parsed in ../program/root-key.ts.
 */
import { createRootKey, revokeRootKey, revokeRootKeyByHash, ROOT_KEY_ID_PATTERN } from '@va/store';
import { UsageError } from '../usage-error';
import { secretArgumentRefused, secretFromStdin } from './secret-input';
import { withRedis } from './with-redis';

const permissionPattern = /^[\x21-\x7e]{1,300}$/; // printable ASCII, no spaces

export interface CreateRootKeyOptions {
  workspace: string;
  permissions: readonly string[];
}

export async function createRootKeyCommand(options: CreateRootKeyOptions): Promise<number> {
  const { workspace: workspaceId, permissions } = options;
  if (permissions.length === 0) throw new UsageError('at least one --permission <perm> is required');
  const bad = permissions.find((p) => !permissionPattern.test(p));
  if (bad !== undefined) throw new UsageError(`invalid permission ${JSON.stringify(bad)}`);
  const { key, hash } = await withRedis((redis, config) =>
    createRootKey(redis, config.keyPrefix, { workspaceId, permissions, now: Date.now() }),
  );
  process.stdout.write(`${key}\n`);
  process.stderr.write(
    `root key for workspace ${workspaceId} with ${permissions.join(', ')}; it is not shown again\n` +
      `key id: ${hash} (revoke with: npm run cli -- root-key revoke ${hash})\n`,
  );
  return 0;
}

export interface RevokeRootKeyOptions {
  /** The key id: the 64 hex digits printed at creation. */
  keyId?: string | undefined;
  /** Read the key itself from stdin instead. */
  keyStdin?: boolean | undefined;
}

export async function revokeRootKeyCommand(options: RevokeRootKeyOptions): Promise<number> {
  const { keyId, keyStdin } = options;
  if (keyStdin && keyId !== undefined) throw new UsageError('give the key id or --key-stdin, not both');
  if (!keyStdin) {
    if (keyId === undefined) throw new UsageError('give the key id, or pipe the key to --key-stdin');
    if (!ROOT_KEY_ID_PATTERN.test(keyId)) {
      throw new UsageError(
        keyId.startsWith('vak_')
          ? secretArgumentRefused(
              'a root key',
              'give its key id (printed at creation) or pipe it to --key-stdin',
            )
          : 'not a key id (64 hex digits, printed at creation)',
      );
    }
  }
  const key = keyStdin ? await secretFromStdin('root key') : undefined;
  const result = await withRedis((redis, config) =>
    key === undefined
      ? revokeRootKeyByHash(redis, config.keyPrefix, keyId!, Date.now())
      : revokeRootKey(redis, config.keyPrefix, key, Date.now()),
  );
  if (result === 'unknown') {
    process.stderr.write('root-key: no such key\n');
    return 1;
  }
  process.stderr.write(result === 'revoked' ? 'revoked\n' : 'already revoked\n');
  return 0;
}
