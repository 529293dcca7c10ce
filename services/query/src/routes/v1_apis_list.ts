/**
 * GET /v1/apis.list: the APIs the credential may read, so that a dashboard can offer them instead of
 * asking for an apiId. Scoped like getVerifications: a root key lists the APIs of its own workspace that
 * its read permissions cover, a read token its one API. Order as for every route: 401 (no valid root key
 * or read token) -> 400 (any query parameter: there are none) -> 429 (the rate limit, as for queries).
 * No concurrency slot: the answer is one read of a set, not a query's work.
 */
import { Type } from '@sinclair/typebox';
import type { ApiList, ErrorEnvelope } from '@va/contracts';
import type { Config } from '@va/config';
import { workspaceApis, type RedisClient } from '@va/store';
import { bearerToken } from '../auth/bearer';
import { readableApis } from '../auth/permissions';
import { authenticate } from '../auth/principal';
import { ApiError } from '../http/api-error';
import type { App } from '../http/app';
import { subjectOf } from '../limits/owner';
import { admit, type LimitsDeps } from '../limits/admission';
import type { AuthCache } from '../auth/access-cache';
import { queryPairs } from './v1_analytics_getVerifications';

export const LIST_APIS = '/v1/apis.list';

export interface ListApisDeps {
  redis: RedisClient;
  config: Pick<Config, 'keyPrefix' | 'readTokenKeys'>;
  now: () => number;
  limits: LimitsDeps;
  authCache: AuthCache;
}

const errorResponse = (description: string) =>
  Type.Unsafe<ErrorEnvelope>({ ...Type.Ref('ErrorEnvelope'), description });

export function listApisRoute(app: App, deps: ListApisDeps): void {
  app.get(
    LIST_APIS,
    {
      schema: {
        operationId: 'listApis',
        summary: 'The APIs this credential may read',
        description:
          'A root key gets the APIs of its workspace it may read: all of them with api.*.read_api, those ' +
          'named by api.<apiId>.read_api otherwise (an empty list without any read permission). A read token ' +
          'gets the one API it was minted for. Sorted by apiId. Counts against the rate limit like a query.',
        security: [{ rootKey: [] }, { readToken: [] }],
        response: {
          200: Type.Unsafe<ApiList>({ ...Type.Ref('ApiList'), description: 'The readable APIs.' }),
          '4xx': errorResponse(
            '401 unauthorized, 400 invalid_input (a query parameter: this endpoint takes none), 429 too_many_requests (see Retry-After)',
          ),
          '5xx': errorResponse('500 internal_server_error'),
        },
      },
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const bearer = bearerToken(request.headers.authorization);
      if (bearer === null) {
        throw new ApiError(
          'unauthorized',
          'Send a root key or a read token in the header Authorization: Bearer <token>.',
        );
      }
      const { principal } = await authenticate(deps, bearer, undefined, deps.now());
      const names = [...new Set([...queryPairs(request.raw.url).keys()])];
      if (names.length > 0) {
        throw new ApiError(
          'invalid_input',
          'This endpoint takes no query parameters.',
          names.map((name) => ({
            location: `query.${name}`,
            message: `unknown parameter ${JSON.stringify(name)}`,
            fix: 'remove it',
          })),
        );
      }
      const subject = principal.kind === 'readToken' ? subjectOf(principal.claims.externalId) : null;
      const limited = await admit(deps.limits, { rootKeyHash: principal.rootKeyHash, subject }, request.id, {
        slots: false,
      });
      if ('limit' in limited && limited.limit === 'rate') {
        reply.header('retry-after', String(limited.retryAfter));
        throw new ApiError(
          'too_many_requests',
          `${limited.scope === 'subject' ? "The read tokens of this end user sent more requests than their share of the root key's rate limit allows" : 'The root key sent more requests than its rate limit allows'}; retry in ${limited.retryAfter} s.`,
        );
      }
      const apiIds =
        principal.kind === 'readToken'
          ? [principal.claims.apiId]
          : readableApis(
              principal.permissions,
              await workspaceApis(deps.redis, deps.config.keyPrefix, principal.workspaceId),
            );
      reply.header('cache-control', 'no-store');
      return { apis: apiIds.map((apiId) => ({ apiId })) } satisfies ApiList;
    },
  );
}
