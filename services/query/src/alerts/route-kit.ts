/**
 * What every /v1/alerts.* route shares: the root key is authenticated before anything else is looked at
 * (docs/api.md#errors: 401, then 400 for the body or query, then 403, then 404), a read token is refused
 * with 403 after the input was checked, and query strings are checked against their typebox schema with
 * the same field errors as bodies.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ErrorEnvelope, FieldError } from '@va/contracts';
import type { Config } from '@va/config';
import type { RedisClient } from '@va/store';
import type { AuthCache } from '../auth/access-cache';
import { bearerToken } from '../auth/bearer';
import { authenticate, type Principal } from '../auth/principal';
import { ApiError } from '../http/api-error';
import { checkBody } from '../http/body-errors';
import { queryPairs } from '../routes/v1_analytics_getVerifications';

export interface AlertRouteDeps {
  redis: RedisClient;
  config: Pick<Config, 'keyPrefix' | 'readTokenKeys'>;
  now: () => number;
  authCache: AuthCache;
}

export type RootKey = Extract<Principal, { kind: 'rootKey' }>;

export const errorResponse = (description: string) =>
  Type.Unsafe<ErrorEnvelope>({ ...Type.Ref('ErrorEnvelope'), description });

export const ERRORS_4XX =
  '401 unauthorized, 400 invalid_input (one errors[] entry per field), 403 forbidden, 404 not_found';

/** The onRequest hook that authenticates, and the principal it found for a request. */
export function rootKeyAuth(deps: AlertRouteDeps) {
  const principals = new WeakMap<FastifyRequest, Principal>();
  return {
    onRequest: async (request: FastifyRequest) => {
      const bearer = bearerToken(request.headers.authorization);
      if (bearer === null) {
        throw new ApiError('unauthorized', 'Send a root key in the header Authorization: Bearer <root key>.');
      }
      principals.set(request, (await authenticate(deps, bearer, undefined, deps.now())).principal);
    },
    /** The root key of the request (after the input is checked: a read token is 403, not 401). */
    rootKey(request: FastifyRequest): RootKey {
      const principal = principals.get(request)!;
      if (principal.kind !== 'rootKey') {
        throw new ApiError('forbidden', 'A read token cannot manage alerts; use a root key.');
      }
      return principal;
    },
  };
}

export function parseBody<T extends TSchema>(schema: T, body: unknown): Static<T> {
  const checked = checkBody(schema, body);
  if (!checked.ok)
    throw new ApiError('invalid_input', 'The request body is not valid; see errors.', checked.errors);
  return checked.value;
}

/**
 * The query string as one value per parameter (a repeat or an unknown name is an error), integers
 * (`integers`) from decimal digits, then checked against the schema.
 */
export function parseQuery<T extends TSchema>(
  schema: T,
  url: string | undefined,
  integers: string[] = [],
): Static<T> {
  const known = Object.keys((schema as { properties?: object }).properties ?? {});
  const errors: FieldError[] = [];
  const value: Record<string, unknown> = {};
  for (const [name, raw] of queryPairs(url)) {
    const location = `query.${name}`;
    if (!known.includes(name)) {
      errors.push({
        location,
        message: `unknown parameter ${JSON.stringify(name)}`,
        fix: `Send only ${known.join(', ')}.`,
      });
    } else if (name in value) {
      errors.push({ location, message: 'is repeated', fix: 'send it once' });
    } else value[name] = integers.includes(name) && /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
  }
  if (errors.length === 0) {
    const checked = checkBody(schema, value);
    if (checked.ok) return checked.value;
    errors.push(...checked.errors.map((e) => ({ ...e, location: e.location.replace(/^body/, 'query') })));
  }
  throw new ApiError('invalid_input', 'The query is not valid; see errors.', errors);
}
