/**
 * POST /v1/analytics.createReadToken: a root key mints a short-lived read token for one API and
 * one end user (externalId), for dashboards shown to that end user (docs/read-tokens.md).
 * Order as for every route: 401 (no valid root key; checked before the body is parsed) -> 400 (body)
 * -> 403 (a read token; permission api.*.create_read_token or api.<apiId>.create_read_token;
 * tokens switched off) -> 404 (API not in the key's workspace).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import {
  CreateReadTokenRequest,
  READ_TOKEN_DEFAULT_TTL_S,
  type ErrorEnvelope,
  type ReadToken,
} from '@va/contracts';
import type { Config } from '@va/config';
import {
  CREATE_ANY_READ_TOKEN,
  canCreateReadToken,
  createReadTokenPermission,
  mintReadToken,
} from '@va/read-tokens';
import { apiWorkspace, type RedisClient } from '@va/store';
import { bearerToken } from '../auth/bearer';
import { authenticate, type Authenticated } from '../auth/principal';
import { ApiError } from '../http/api-error';
import type { App } from '../http/app';
import { checkBody } from '../http/body-errors';
import type { AuthCache } from '../auth/access-cache';

export const CREATE_READ_TOKEN = '/v1/analytics.createReadToken';

export interface CreateReadTokenDeps {
  redis: RedisClient;
  config: Pick<Config, 'keyPrefix' | 'readTokenKeys'>;
  now: () => number;
  authCache: AuthCache;
}

const errorResponse = (description: string) =>
  Type.Unsafe<ErrorEnvelope>({ ...Type.Ref('ErrorEnvelope'), description });

export function createReadTokenRoute(app: App, deps: CreateReadTokenDeps): void {
  const authenticated = new WeakMap<FastifyRequest, Authenticated>();
  app.post(
    CREATE_READ_TOKEN,
    {
      schema: {
        operationId: 'createReadToken',
        summary: 'Mint a read token for one end user',
        description:
          'A root key with api.*.create_read_token or api.<apiId>.create_read_token mints a signed token ' +
          '(JWT) that reads GET /v1/analytics.getVerifications for this apiId and this externalId only. ' +
          `It lives expiresIn seconds (default ${READ_TOKEN_DEFAULT_TTL_S}, at most 86400). ` +
          'Revoked when the root key is revoked, when its signing key is retired, or by id.',
        security: [{ rootKey: [] }],
        body: Type.Ref('CreateReadTokenRequest'),
        response: {
          200: Type.Unsafe<ReadToken>({ ...Type.Ref('ReadToken'), description: 'The new read token.' }),
          '4xx': errorResponse(
            '401 unauthorized, 400 invalid_input (one errors[] entry per field), 403 forbidden, 404 not_found',
          ),
          '5xx': errorResponse('500 internal_server_error'),
        },
      },
      // The body is checked in the handler, after authentication (docs/api.md#errors: 401 before 400).
      validatorCompiler: () => () => true,
      onRequest: async (request) => {
        const bearer = bearerToken(request.headers.authorization);
        if (bearer === null) {
          throw new ApiError(
            'unauthorized',
            'Send a root key in the header Authorization: Bearer <root key>.',
          );
        }
        authenticated.set(request, await authenticate(deps, bearer, undefined, deps.now()));
      },
    },
    async (request, reply) => {
      const { principal } = authenticated.get(request)!;
      const body = checkBody(CreateReadTokenRequest, request.body);
      if (!body.ok)
        throw new ApiError('invalid_input', 'The request body is not valid; see errors.', body.errors);
      const { apiId, externalId, expiresIn = READ_TOKEN_DEFAULT_TTL_S } = body.value;
      if (principal.kind !== 'rootKey') {
        throw new ApiError('forbidden', 'A read token cannot create read tokens; use a root key.');
      }
      if (!canCreateReadToken(principal.permissions, apiId)) {
        throw new ApiError(
          'forbidden',
          `The root key lacks the permission to create read tokens for this API: it needs ${CREATE_ANY_READ_TOKEN} or ${createReadTokenPermission(apiId)}.`,
        );
      }
      if (deps.config.readTokenKeys.length === 0) {
        throw new ApiError(
          'forbidden',
          'Read tokens are switched off on this service (no signing key is configured).',
        );
      }
      if ((await apiWorkspace(deps.redis, deps.config.keyPrefix, apiId)) !== principal.workspaceId) {
        throw new ApiError('not_found', `The API ${apiId} does not exist in the workspace of this root key.`);
      }
      const { token, claims } = await mintReadToken(deps.config.readTokenKeys, {
        workspaceId: principal.workspaceId,
        apiId,
        externalId,
        rootKeyHash: principal.rootKeyHash,
        now: deps.now(),
        ttlSeconds: expiresIn,
      });
      reply.header('cache-control', 'no-store');
      return {
        token,
        tokenId: claims.tokenId,
        apiId,
        externalId,
        expiresAt: claims.expiresAt,
      } satisfies ReadToken;
    },
  );
}
