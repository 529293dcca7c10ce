/**
 * GET /v1/analytics.getVerifications. The schema documents the route (OpenAPI) and shapes
 * the responses; the query string is validated by core's parseQuery on the raw pairs, so
 * that repeated parameters, comma lists and unknown parameters follow docs/api.md#parameters exactly
 * (fastify's own querystring validation is switched off for this route).
 */
import { Type } from '@sinclair/typebox';
import { verificationsQuerySchema, type Datapoint, type ErrorEnvelope } from '@va/contracts';
import { countingStore } from '@va/store';
import { ApiError, RowCapError } from '../http/api-error';
import { noteCacheUse } from '../http/access-log';
import type { App } from '../http/app';
import { ClientGone, withBudget } from '../http/budget';
import { negotiateEncoding, type Encoding } from '../http/compression';
import { bytesBody, jsonBody } from '../http/json-body';
import type { QueryMetrics } from '../http/metrics';
import type { AuthCache } from '../auth/access-cache';
import type { LimitsDeps } from '../limits/admission';
import { authorize, type VerificationsDeps } from '../verifications/answer';
import {
  overCapFromRange,
  readAnswerJson,
  refuseEarly,
  RowsForAWorker,
  type JsonAnswer,
} from '../verifications/read-answer';
import { LIGHT_ROWS, weighQuery, type ReadPool } from '../verifications/read-pool';
import { dictionariesOf } from '../verifications/cube-query';
import { startQuery } from '../verifications/start';

export interface RouteDeps extends VerificationsDeps {
  /** Time budget of one request (ms). */
  budgetMs: number;
  /** Root keys, read-token deny flags and API owners, kept at most QUERY_AUTH_CACHE_MS (auth/access-cache.ts). */
  authCache: AuthCache;
  /** Rate and concurrency limits (one script, in the request's first round trip: verifications/start.ts). */
  limits: LimitsDeps;
  metrics: QueryMetrics;
  /** Worker threads for heavy queries; absent = every query on the main thread. */
  pool?: ReadPool;
}

export const GET_VERIFICATIONS = '/v1/analytics.getVerifications';

const errorResponse = (description: string) =>
  Type.Unsafe<ErrorEnvelope>({ ...Type.Ref('ErrorEnvelope'), description });
const Rows = Type.Unsafe<Datapoint[]>({
  type: 'array',
  items: Type.Ref('Datapoint'),
  description: 'Datapoints after grouping, ordering and limit.',
  headers: {
    'X-Request-Id': { type: 'string', description: 'Id of the request (also in error envelopes).' },
    'X-Precision': {
      type: 'string',
      enum: ['hour', 'day', 'month'],
      description:
        'day or month: part of the range was older than the hour retention and was answered from day or month rollups. ' +
        'hour: a day or month edge of the timeZone falls inside a UTC hour (offsets such as +05:30); that hour counts whole in the slice holding its start.',
    },
    'X-Time-Zone': {
      type: 'string',
      description:
        "The zone whose calendar the day and month slices follow (its IANA name): the query's timeZone, else the API's default zone (UTC unless set).",
    },
  },
});

/** The query string of a raw request URL as ordered, percent-decoded pairs. */
export function queryPairs(url: string | undefined): URLSearchParams {
  const q = url === undefined ? -1 : url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url!.slice(q + 1));
}

/** Rows serialised by a worker of the pool (compressed when `encoding` is set). */
interface BytesAnswer {
  bytes: Buffer;
  encoding: Encoding | null;
  precision: JsonAnswer['precision'];
  xPrecision: JsonAnswer['xPrecision'];
}

export function getVerificationsRoute(app: App, deps: RouteDeps): void {
  app.get(
    GET_VERIFICATIONS,
    {
      schema: {
        operationId: 'getVerifications',
        summary: 'Counts of key verifications',
        description:
          'Counts of verification outcomes for one API, filtered by externalId, keys, tags and regions, grouped by key, ' +
          'identity, tag or tag set, region and by hour, day or month. Lists may repeat the parameter or use commas. ' +
          'The header X-Precision (day or month) marks answers where part of the range was older than the ' +
          'hour retention and came from day or month rollups; X-Precision: hour marks day or month slices of a ' +
          "timeZone whose edges fall inside a UTC hour (each count exact to the UTC hour). Without timeZone the API's default " +
          'zone applies (UTC unless set); the header X-Time-Zone names the zone used. With a read token, only its API and its ' +
          'externalId can be read (the externalId filter is then implied; another one is 403).',
        security: [{ rootKey: [] }, { readToken: [] }],
        querystring: verificationsQuerySchema(deps.config.maxRows),
        response: {
          200: Rows,
          '4xx': errorResponse(
            '401 unauthorized, 400 invalid_input (one errors[] entry per failure), 403 forbidden, 404 not_found, ' +
              "422 query_too_expensive (the estimated work is over the service's bound; the detail names what to narrow), " +
              "429 too_many_requests (rate or concurrency limit of the root key, or of a read token's end user; see Retry-After)",
          ),
          '5xx': errorResponse(
            '500 internal_server_error, 503 query_timeout (the time budget ran out; the work was stopped), ' +
              '503 generation_changed (a rebuild switched the counters during the query; retry)',
          ),
        },
      },
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const { metrics } = deps;
      // The request's reads need only what was written before it arrived (dictionary loads: reader.ts).
      const arrived = performance.now();
      // A client that hangs up stops its request's work as the time budget does (a dashboard
      // closed mid-query must not keep a worker and Redis busy for an answer nobody reads).
      const hangUp = (abort: (reason: Error) => void) =>
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) abort(new ClientGone());
        });
      let timeZone: string | undefined;
      try {
        const answer = await withBudget<JsonAnswer | BytesAnswer>(
          deps.budgetMs,
          async (signal) => {
            const authorized = await authorize(deps, {
              authorization: request.headers.authorization,
              params: queryPairs(request.raw.url),
            });
            const { query, now } = authorized;
            timeZone = authorized.timeZone;
            signal.throwIfAborted();
            const started = await startQuery(
              deps.redis,
              deps.limits,
              authorized,
              request.id,
              deps.config.keyPrefix,
              overCapFromRange(query, deps.config.maxRows)
                ? null
                : {
                    apiId: query.apiId,
                    billingZone: query.billingZone,
                    dictionaries: deps.dictionaries,
                    names: dictionariesOf(query),
                  },
            );
            if ('limit' in started) {
              if (started.limit === 'rate') {
                metrics.refused('rate_limited');
                reply.header('retry-after', String(started.retryAfter));
                throw new ApiError(
                  'too_many_requests',
                  started.scope === 'subject'
                    ? `The read tokens of this end user sent more queries than their share of the root key's rate limit allows; retry in ${started.retryAfter} s.`
                    : `The root key sent more queries than its rate limit allows; retry in ${started.retryAfter} s.`,
                );
              }
              metrics.refused('concurrency');
              reply.header('retry-after', '1');
              throw new ApiError(
                'too_many_requests',
                started.scope === 'subject'
                  ? `The read tokens of this end user have ${deps.limits.slotSubjectMax} queries in progress, their share of the root key's; retry when one finished.`
                  : `The root key has ${deps.limits.slotMax} queries in progress, as many as it may; retry when one finished.`,
              );
            }
            signal.throwIfAborted();
            const { release, space, prefetched } = started;
            metrics.waited(reply.elapsedTime / 1000);
            metrics.inFlight.inc();
            /** The answer read and built on this thread. */
            const answerHere = async (extra: { lightRows?: number } = {}) => {
              // The shared cache, its use also counted for this request (the access log's cacheHits).
              const sections = deps.sections && countingStore(deps.sections);
              try {
                return await readAnswerJson(
                  { ...deps, ...(sections && { sections }) },
                  space,
                  query,
                  now,
                  signal,
                  { arrived, ...(prefetched && { prefetched }), ...extra },
                );
              } finally {
                if (sections) noteCacheUse(request, sections.use());
              }
            };
            try {
              const weight = deps.pool ? await weighQuery(deps, space, query, arrived) : 'light';
              if (weight === 'light-if-few') {
                try {
                  const answer = await answerHere({ lightRows: LIGHT_ROWS });
                  metrics.answered('main');
                  return answer;
                } catch (error) {
                  if (!(error instanceof RowsForAWorker)) throw error;
                }
              }
              if (deps.pool && weight !== 'light') {
                await refuseEarly(deps, space, query, now, signal, arrived);
                const budgetMs = Math.max(1, deps.budgetMs - reply.elapsedTime);
                const encoding = negotiateEncoding(request.headers['accept-encoding']);
                const result = await deps.pool.run({ space, query, now, budgetMs, encoding }, signal);
                noteCacheUse(request, result.cacheUse);
                metrics.answered(weight === 'heavy' ? 'worker' : 'worker_after_main');
                if (!result.ok) {
                  const { kind, detail, errors } = result.error;
                  throw result.rowCap ? new RowCapError(errors) : new ApiError(kind, detail, errors);
                }
                const bytes = Buffer.from(result.json.buffer, result.json.byteOffset, result.json.byteLength);
                return {
                  bytes,
                  encoding: result.encoding,
                  precision: result.precision,
                  xPrecision: result.xPrecision,
                };
              }
              const answer = await answerHere();
              metrics.answered('main');
              return answer;
            } finally {
              metrics.inFlight.dec();
              // Not awaited: the answer does not wait for the release (limits/admission.ts).
              void release();
            }
          },
          hangUp,
        );
        if (answer.xPrecision !== null) reply.header('x-precision', answer.xPrecision);
        if (timeZone !== undefined) reply.header('x-time-zone', timeZone);
        // Written here, not by fastify's serializer: large answers go out as a stream of pieces.
        reply.type('application/json; charset=utf-8');
        if (!('bytes' in answer)) return reply.send(jsonBody(answer.rows) as never);
        if (!answer.encoding) return reply.send(bytesBody(answer.bytes) as never);
        // Compressed by the worker: @fastify/compress leaves a response with Content-Encoding alone.
        return reply
          .header('content-encoding', answer.encoding)
          .header('vary', 'accept-encoding')
          .send(answer.bytes as never);
      } catch (error) {
        if (error instanceof ClientGone) {
          metrics.refused('client_closed');
          // nginx's "client closed request" (nobody reads it: the socket is closed).
          return reply.code(499).send(undefined as never);
        }
        if (error instanceof RowCapError) metrics.refused('row_cap');
        else if (error instanceof ApiError && error.kind === 'query_too_expensive')
          metrics.refused('too_expensive');
        else if (error instanceof ApiError && error.kind === 'query_timeout') metrics.refused('timeout');
        throw error;
      }
    },
  );
}
