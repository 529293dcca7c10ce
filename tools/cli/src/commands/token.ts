/**
 * `token create`: mints an end-user read token
 * through the query service (POST /v1/analytics.createReadToken, with the root key from --token or
 * ANALYTICS_TOKEN) and prints it alone on the first line of stdout.
 * `token revoke <read token>`: puts the token on the deny-list in Redis until it expires.
 * Options: ../program/token.ts.
 */
import { AnalyticsClientError, ApiError, createClient } from '@va/client';
import { READ_TOKEN_MAX_TTL_S } from '@va/contracts';
import { loadConfig } from '@va/config';
import { unverifiedTokenId } from '@va/read-tokens';
import { denyReadToken } from '@va/store';
import { UsageError } from '../usage-error';
import { withRedis } from './with-redis';

export interface CreateTokenOptions {
  api: string;
  externalId: string;
  /** Lifetime in seconds; the service's default when undefined. */
  expiresIn?: number | undefined;
  url?: string | undefined;
  /** Root key; default ANALYTICS_TOKEN. */
  token?: string | undefined;
}

export async function createTokenCommand(options: CreateTokenOptions): Promise<number> {
  const config = loadConfig();
  const { api: apiId, externalId, expiresIn } = options;
  const rootKey = options.token ?? config.analyticsToken;
  if (rootKey === undefined) throw new UsageError('give the root key with --token or ANALYTICS_TOKEN');
  const client = createClient({ baseUrl: options.url ?? config.queryUrl, token: rootKey });
  try {
    const minted = await client.createReadToken({
      apiId,
      externalId,
      ...(expiresIn !== undefined && { expiresIn }),
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

export async function revokeTokenCommand(token: string): Promise<number> {
  const id = unverifiedTokenId(token);
  if (id === null) throw new UsageError('that is not a read token');
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
