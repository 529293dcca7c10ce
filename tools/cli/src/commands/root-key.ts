/**
 * `root-key create`: prints the new key alone on the first line of stdout (it is shown only this
 * once; Redis keeps its hash) and its id (that hash) on stderr. `root-key revoke <key | id>`:
 * requests with the key get 401 from the next request on; revoking by id keeps the secret out of
 * shell history and process lists. Options are parsed in ../program/root-key.ts.
 */
import { createRootKey, revokeRootKey, revokeRootKeyByHash, ROOT_KEY_ID_PATTERN } from '@va/store';
import { UsageError } from '../usage-error';
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

/** `keyOrId`: the key itself (vak_...) or its id, the 64 hex digits printed at creation. */
export async function revokeRootKeyCommand(keyOrId: string): Promise<number> {
  const byId = ROOT_KEY_ID_PATTERN.test(keyOrId);
  const result = await withRedis((redis, config) =>
    byId
      ? revokeRootKeyByHash(redis, config.keyPrefix, keyOrId, Date.now())
      : revokeRootKey(redis, config.keyPrefix, keyOrId, Date.now()),
  );
  if (result === 'unknown') {
    process.stderr.write('root-key: no such key\n');
    return 1;
  }
  process.stderr.write(result === 'revoked' ? 'revoked\n' : 'already revoked\n');
  return 0;
}
