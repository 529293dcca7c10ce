/**
 * `token create`: mints an end-user read token
 * through the query service (POST /v1/analytics.createReadToken, with the root key from ANALYTICS_TOKEN
 * or stdin) and prints it alone on the first line of stdout.
 * `token revoke <token id>` (or the token on stdin): puts the token on the deny-list in Redis until it
 * expires. Options: ../program/token.ts.
 */
import { AnalyticsClientError, ApiError, createClient } from '@va/client';
import { READ_TOKEN_MAX_TTL_S } from '@va/contracts';
import { loadConfig } from '@va/config';
import { READ_TOKEN_ID_PATTERN, unverifiedTokenId } from '@va/read-tokens';
import { denyReadToken } from '@va/store';
import { UsageError } from '../usage-error';
import { analyticsToken, secretArgumentRefused, secretFromStdin, type TokenSource } from './secret-input';
import { withRedis } from './with-redis';

export interface CreateTokenOptions extends TokenSource {
  api: string;
  externalId: string;
  /** Lifetime in seconds; the service's default when undefined. */
  expiresIn?: number | undefined;
  url?: string | undefined;
}

export async function createTokenCommand(options: CreateTokenOptions): Promise<number> {
  const config = loadConfig();
  const { api: apiId, externalId, expiresIn } = options;
  const rootKey = await analyticsToken(options, config.analyticsToken);
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

export interface RevokeTokenOptions {
  /** The token id (jti). */
  tokenId?: string | undefined;
  /** Read the token itself from stdin instead. */
  tokenStdin?: boolean | undefined;
}

export async function revokeTokenCommand(options: RevokeTokenOptions): Promise<number> {
  const now = Date.now();
  // The longest a token lives: a deny-list entry for a token whose expiry is unknown (revoked by id),
  // or claimed by an unverified exp, never needs to outlive it.
  const longest = now + READ_TOKEN_MAX_TTL_S * 1000;
  let target: { tokenId: string; expiresAt: number };
  if (options.tokenStdin) {
    if (options.tokenId !== undefined) throw new UsageError('give the token id or --token-stdin, not both');
    const id = unverifiedTokenId(await secretFromStdin('read token'));
    if (id === null) throw new UsageError('that is not a read token');
    if (id.expiresAt <= now) {
      process.stderr.write(`read token ${id.tokenId} has expired already\n`);
      return 0;
    }
    target = { tokenId: id.tokenId, expiresAt: Math.min(id.expiresAt, longest) };
  } else {
    const { tokenId } = options;
    if (tokenId === undefined) throw new UsageError('give the token id, or pipe the token to --token-stdin');
    if (!READ_TOKEN_ID_PATTERN.test(tokenId)) {
      throw new UsageError(
        unverifiedTokenId(tokenId) === null
          ? 'not a token id (16-64 of A-Z a-z 0-9 _ -, printed by `token create`)'
          : secretArgumentRefused(
              'a read token',
              'give its token id (printed by `token create`) or pipe the token to --token-stdin',
            ),
      );
    }
    target = { tokenId, expiresAt: longest };
  }
  const added = await withRedis((redis, config) => denyReadToken(redis, config.keyPrefix, target, now));
  process.stderr.write(`read token ${target.tokenId} ${added ? 'revoked' : 'was revoked already'}\n`);
  return 0;
}
