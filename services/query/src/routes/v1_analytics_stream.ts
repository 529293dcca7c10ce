/**
 * GET /v1/analytics.stream (docs/api.md#stream): getVerifications as Server-Sent Events. The same query
 * string, checks and error envelope as getVerifications until the stream starts (401, 400, 403, 404,
 * then the stream caps and the rate limit: 503 too_many_streams, 429), then the first answer: a
 * query's first read is answered like a request (its 400 row cap, 422, 503 before any byte of the
 * stream). After that, `answer` events whenever the answer changes (stream/query-group.ts), heartbeat
 * comments, and an `error` event that ends the stream when the credential or the query no longer reads.
 */
import { Type } from '@sinclair/typebox';
import { StreamAnswer, verificationsQuerySchema, type ErrorEnvelope } from '@va/contracts';
import type { AuthCache } from '../auth/access-cache';
import { ApiError } from '../http/api-error';
import type { App } from '../http/app';
import { admit, type LimitsDeps } from '../limits/admission';
import type { StreamHub } from '../stream/hub';
import type { StreamMetrics } from '../stream/metrics';
import { OpenStream } from '../stream/open-stream';
import { OPENING } from '../stream/sse';
import { hasOpenEnd, streamQuery } from '../stream/stream-query';
import { authorize, type VerificationsDeps } from '../verifications/answer';
import { queryPairs } from './v1_analytics_getVerifications';

export const STREAM = '/v1/analytics.stream';

export interface StreamRouteDeps extends VerificationsDeps {
  authCache: AuthCache;
  limits: LimitsDeps;
  hub: StreamHub;
  metrics: StreamMetrics;
  docsUrl: string;
}

/** Seconds a client refused by a stream cap is asked to wait. */
const FULL_RETRY_AFTER_S = 5;

const errorResponse = (description: string) =>
  Type.Unsafe<ErrorEnvelope>({ ...Type.Ref('ErrorEnvelope'), description });

/** Last-Event-ID as sent (one header; an id never holds a line break). */
function lastEventId(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value === undefined || value === '' ? undefined : value;
}

export function streamRoute(app: App, deps: StreamRouteDeps): void {
  app.addSchema(StreamAnswer);
  app.get(
    STREAM,
    {
      exposeHeadRoute: false,
      schema: {
        operationId: 'streamVerifications',
        summary: 'Counts of key verifications, pushed as they change (Server-Sent Events)',
        description:
          'The query of getVerifications (same parameters, same auth and scope rules, same errors before the ' +
          'stream starts) as a text/event-stream: an `answer` event with the current rows, then one whenever they ' +
          'change, at most twice a second. Each answer event has an id (a hash of its data); a reconnect with ' +
          'the header Last-Event-ID gets the current answer only when it differs. Comment lines are sent as ' +
          'heartbeats. An `error` event (the error envelope) ends the stream when the credential or the query ' +
          'no longer reads (a revoked key, an expired token, the row cap reached).',
        security: [{ rootKey: [] }, { readToken: [] }],
        querystring: verificationsQuerySchema(deps.config.maxRows),
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({
              description: 'The id of the last answer event received, to resume without it again.',
            }),
          ),
        }),
        response: {
          200: {
            description:
              'The stream: `answer` events whose data is a StreamAnswer, `error` events, comments. The header ' +
              "X-Time-Zone names the zone of its day and month slices (the query's timeZone, else the API's default zone when it opened).",
            content: { 'text/event-stream': { schema: Type.Ref('StreamAnswer') } },
          },
          '4xx': errorResponse(
            'As getVerifications (401, 400, 403, 404, 422), and 429 too_many_requests: the rate limit, or the root ' +
              "key's open streams on this service (QUERY_STREAM_MAX_PER_KEY); see Retry-After.",
          ),
          '5xx': errorResponse(
            '503 too_many_streams (this service holds QUERY_STREAM_MAX streams; see Retry-After), 503 ' +
              'query_timeout and generation_changed of the first read, 500.',
          ),
        },
      },
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const { hub, metrics } = deps;
      const authorization = request.headers.authorization;
      const params = queryPairs(request.raw.url);
      const authorized = await authorize(deps, { authorization, params });
      const seat = hub.reserve(authorized.rootKeyHash);
      if (seat === 'process' || seat === 'key') {
        metrics.refused.inc({ reason: seat });
        reply.header('retry-after', String(FULL_RETRY_AFTER_S));
        throw seat === 'process'
          ? new ApiError(
              'too_many_streams',
              'This service holds as many open streams as it may; retry later.',
            )
          : new ApiError(
              'too_many_requests',
              'The root key (with its read tokens) has as many open streams on this service as it may; close one or retry later.',
            );
      }
      let group;
      try {
        const admitted = await admit(deps.limits, authorized, request.id, { slots: false });
        if ('limit' in admitted) {
          reply.header('retry-after', String('retryAfter' in admitted ? admitted.retryAfter : 1));
          throw new ApiError(
            'too_many_requests',
            'The root key sent more queries than its rate limit allows.',
          );
        }
        group = await hub.enter(streamQuery(authorized.query, hasOpenEnd(params)));
      } catch (error) {
        seat.release();
        throw error;
      }
      const res = reply.raw;
      reply.hijack();
      if (res.destroyed) {
        // The client left while the first answer was read.
        group.abandon();
        seat.release();
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no', // nginx: pass events on as they come
        'x-request-id': request.id,
        // The zone of the stream's day and month slices, fixed when it opened (docs/api.md#time-zones).
        'x-time-zone': authorized.timeZone,
      });
      res.write(OPENING);
      const stream: OpenStream = new OpenStream(res, {
        requestId: request.id,
        docsUrl: deps.docsUrl,
        authKey: `${String(authorization)}\n${params.toString()}`,
        recheck: async () => {
          try {
            await authorize(deps, { authorization, params });
            return null;
          } catch (error) {
            if (error instanceof ApiError) return error;
            throw error;
          }
        },
        onEnd: () => {
          group.leave(stream);
          hub.untrack(stream);
          seat.release();
        },
        onEvent: () => metrics.events.inc(),
      });
      hub.track(stream);
      group.attach(stream, lastEventId(request.headers['last-event-id']));
    },
  );
}
