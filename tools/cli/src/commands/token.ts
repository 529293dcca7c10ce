/**
 * `token create --api <apiId> --external-id <id> [--expires-in <s>]`: mints an end-user read token
 * through the query service (POST /v1/analytics.createReadToken, with the root key from --token or
 * ANALYTICS_TOKEN) and prints it alone on the first line of stdout.
 * `token revoke <read token>`: puts the token on the deny-list in Redis until it expires.
 */
import { parseArgs } from 'node:util';
import { AnalyticsClientError, ApiError, createClient } from '@va/client';
import { READ_TOKEN_MAX_TTL_S } from '@va/contracts';
import { loadConfig } from '@va/config';
import { unverifiedTokenId } from '@va/read-tokens';
import { denyReadToken } from '@va/store';
import { withRedis } from './with-redis';

export const usage = [
  '  token create --api <apiId> --external-id <id> [--expires-in <seconds>] [--url <base url>] [--token <root key>]',
  '      mints a read token for one end user (default 15 min, at most 24 h) and prints it alone on the first line',
  '      (root key: --token or ANALYTICS_TOKEN, with api.*.create_read_token or api.<apiId>.create_read_token)',
  '  token revoke <read token>',
  '      refuses the token from the next request on (Redis deny-list until it expires)',
].join('\n');

function fail(message: string): number {
  process.stderr.write(`token: ${message}\n${usage}\n`);
  return 2;
}

async function create(args: string[]): Promise<number> {
  const config = loadConfig();
  const { values, positionals } = parseArgs({
    args,
    options: {
      api: { type: 'string' },
      'external-id': { type: 'string' },
      'expires-in': { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) return fail(`unexpected argument ${positionals[0]}`);
  const apiId = values.api;
  const externalId = values['external-id'];
  if (apiId === undefined || externalId === undefined) return fail('--api and --external-id are required');
  const expiresIn = values['expires-in'];
  if (expiresIn !== undefined && !/^\d+$/.test(expiresIn)) return fail('--expires-in must be whole seconds');
  const rootKey = values.token ?? config.analyticsToken;
  if (rootKey === undefined) return fail('give the root key with --token or ANALYTICS_TOKEN');
  const client = createClient({ baseUrl: values.url ?? config.queryUrl, token: rootKey });
  try {
    const minted = await client.createReadToken({
      apiId,
      externalId,
      ...(expiresIn !== undefined && { expiresIn: Number(expiresIn) }),
    });
    process.stdout.write(`${minted.token}\n`);
    process.stderr.write(
      `read token ${minted.tokenId} for ${minted.apiId} / ${minted.externalId}, ` +
        `expires ${new Date(minted.expiresAt).toISOString()}\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof AnalyticsClientError)) throw err;
    process.stderr.write(`token: ${err.message}\n`);
    if (err instanceof ApiError) process.stderr.write(`request id: ${err.requestId ?? 'none'}\n`);
    return 1;
  }
}

async function revoke(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) return fail('revoke takes exactly one read token');
  const id = unverifiedTokenId(positionals[0]!);
  if (id === null) return fail('that is not a read token');
  const now = Date.now();
  if (id.expiresAt <= now) {
    process.stderr.write(`read token ${id.tokenId} has expired already\n`);
    return 0;
  }
  // An unverified exp could be anything: no entry outlives the longest lifetime a token can have.
  const expiresAt = Math.min(id.expiresAt, now + READ_TOKEN_MAX_TTL_S * 1000);
  const added = await withRedis((redis, config) =>
    denyReadToken(redis, config.keyPrefix, { tokenId: id.tokenId, expiresAt }, now),
  );
  process.stderr.write(`read token ${id.tokenId} ${added ? 'revoked' : 'was revoked already'}\n`);
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
