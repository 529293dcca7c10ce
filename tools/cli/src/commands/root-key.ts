/**
 * `root-key create --workspace <id> --permission <perm> [--permission <perm> ...]`: prints the new key
 * alone on the first line of stdout (it is shown only this once; Redis keeps its hash).
 * `root-key revoke <key>`: requests with the key get 401 from the next request on.
 */
import { parseArgs } from 'node:util';
import { IDENTIFIER_PATTERN } from '@va/contracts';
import { createRootKey, revokeRootKey } from '@va/store';
import { withRedis } from './with-redis';

export const usage = [
  '  root-key create --workspace <id> --permission <perm> [--permission <perm> ...]',
  '      creates a root key and prints it alone on the first line (e.g. --permission api.*.read_api)',
  '  root-key revoke <key>',
  '      revokes a root key',
].join('\n');

const identifier = new RegExp(IDENTIFIER_PATTERN);
const permissionPattern = /^[\x21-\x7e]{1,300}$/; // printable ASCII, no spaces

function fail(message: string): number {
  process.stderr.write(`root-key: ${message}\n${usage}\n`);
  return 2;
}

async function create(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { workspace: { type: 'string' }, permission: { type: 'string', multiple: true } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) return fail(`unexpected argument ${positionals[0]}`);
  const workspaceId = values.workspace;
  const permissions = values.permission ?? [];
  if (workspaceId === undefined || !identifier.test(workspaceId)) {
    return fail('--workspace <id> is required (1-255 of A-Z a-z 0-9 _ - . :)');
  }
  if (permissions.length === 0) return fail('at least one --permission <perm> is required');
  const bad = permissions.find((p) => !permissionPattern.test(p));
  if (bad !== undefined) return fail(`invalid permission ${JSON.stringify(bad)}`);
  const { key } = await withRedis((redis, config) =>
    createRootKey(redis, config.keyPrefix, { workspaceId, permissions, now: Date.now() }),
  );
  process.stdout.write(`${key}\n`);
  process.stderr.write(
    `root key for workspace ${workspaceId} with ${permissions.join(', ')}; it is not shown again\n`,
  );
  return 0;
}

async function revoke(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) return fail('revoke takes exactly one key');
  const result = await withRedis((redis, config) =>
    revokeRootKey(redis, config.keyPrefix, positionals[0]!, Date.now()),
  );
  if (result === 'unknown') {
    process.stderr.write('root-key: no such key\n');
    return 1;
  }
  process.stderr.write(result === 'revoked' ? 'revoked\n' : 'already revoked\n');
  return 0;
}

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'create') return await create(rest);
    if (sub === 'revoke') return await revoke(rest);
  } catch (err) {
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      return fail(err.message);
    }
    throw err;
  }
  return fail(sub === undefined ? 'missing subcommand' : `unknown subcommand ${sub}`);
}
