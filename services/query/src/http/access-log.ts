/**
 * The access log: one JSON line per request (`msg: "request"`, info level), after its response has gone out.
 * Fields: method, route (the route's pattern, never the URL: query strings carry identifiers), status,
 * durationMs, requestId (the X-Request-Id header and every other line of the request), principal, bytes.
 * `principal` is the kind of credential the request carried, read from its Authorization header: rootKey,
 * readToken or none; the status says whether it was accepted (401 when not). `bytes` is what the response
 * put on the connection, headers included, after compression. QUERY_ACCESS_LOG sets the share of requests
 * logged (on = all, off = none); below 1, every 5xx is logged all the same. A query's line also has
 * cacheHits and cacheMisses: the sections (and months of days) its reads took from the section cache, and
 * the sections Redis had to send (noteCacheUse, called by the route).
 */
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CacheUse } from '@va/store';
import { looksLikeReadToken } from '@va/read-tokens';
import { bearerToken } from '../auth/bearer';
import type { App } from './app';

const cacheUses = new WeakMap<object, CacheUse>();

/** Records what a request's reads used of the section cache, for its access-log line. */
export function noteCacheUse(request: object, use: CacheUse): void {
  cacheUses.set(request, use);
}

export type PrincipalKind = 'rootKey' | 'readToken' | 'none';

/** The kind of credential in an Authorization header (not whether it is valid). Pure. */
export function principalKind(authorization: string | string[] | undefined): PrincipalKind {
  const token = bearerToken(authorization);
  if (token === null) return 'none';
  return looksLikeReadToken(token) ? 'readToken' : 'rootKey';
}

/** Whether a request's line is written: all at 1, none at 0, a random share between; 5xx always unless off. */
export function shouldLog(rate: number, status: number, random: () => number = Math.random): boolean {
  if (rate <= 0) return false;
  return rate >= 1 || status >= 500 || random() < rate;
}

export function registerAccessLog(app: App, rate: number, random: () => number = Math.random): void {
  if (rate <= 0) return;
  // Bytes written on the connection when the request arrived: the difference at the end is this response's
  // (a keep-alive connection carries one request after another).
  const writtenBefore = new WeakMap<object, number>();
  const socketOf = (raw: { socket?: Socket | null }) => raw.socket ?? undefined;
  // `done` rather than async: no promise and no microtask per request.
  app.addHook('onRequest', (request, _reply, done) => {
    const socket = socketOf(request.raw);
    if (socket) writtenBefore.set(request, socket.bytesWritten);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (shouldLog(rate, reply.statusCode, random)) logLine(request, reply);
    done();
  });
  const logLine = (request: FastifyRequest, reply: FastifyReply) => {
    const socket = socketOf(request.raw);
    const before = writtenBefore.get(request);
    const length = Number(reply.getHeader('content-length'));
    const bytes =
      socket && before !== undefined
        ? socket.bytesWritten - before
        : Number.isFinite(length)
          ? length
          : undefined;
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        principal: principalKind(request.headers.authorization),
        bytes,
        ...cacheFields(cacheUses.get(request)),
      },
      'request',
    );
  };
}

const cacheFields = (use: CacheUse | undefined) =>
  use ? { cacheHits: use.hits, cacheMisses: use.misses } : {};
