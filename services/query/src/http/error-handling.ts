/**
 * Every error leaves in the envelope (docs/api.md#errors) with the X-Request-Id header: our ApiErrors,
 * fastify's own 4xx (no such route, unsupported content type, body too large, bad URL), and
 * unexpected failures, which are logged with the request id and answered with a generic 500.
 */
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_KINDS } from '@va/contracts';
import { ApiError } from './api-error';
import type { App } from './app';
import { errorEnvelope, kindOfStatus, type EnvelopeInput } from './envelope';
import { newRequestId } from './request-id';

type Failure = Omit<EnvelopeInput, 'requestId' | 'docsUrl'>;

export const INTERNAL_DETAIL =
  'The request failed on our side. Retry later; if it keeps failing, report the request id.';

function statusOf(error: unknown): number {
  const status =
    typeof error === 'object' && error !== null && 'statusCode' in error ? error.statusCode : undefined;
  return typeof status === 'number' && Number.isInteger(status) ? status : 500;
}

export function sendFailure(docsUrl: string, request: FastifyRequest, reply: FastifyReply, failure: Failure) {
  const body = errorEnvelope({ ...failure, requestId: request.id, docsUrl });
  return reply.code(body.error.status).header('x-request-id', request.id).send(body);
}

/** The envelope for anything thrown while answering a request. */
export function failureOf(error: unknown): Failure | undefined {
  if (error instanceof ApiError) return { kind: error.kind, detail: error.detail, errors: error.errors };
  const status = statusOf(error);
  if (status < 400 || status >= 500) return undefined;
  const { kind, detail } = kindOfStatus(status);
  return status === ERROR_KINDS[kind].status ? { kind, detail } : { kind, detail, status };
}

export function installErrorHandling(app: App, docsUrl: string): void {
  // Hooks on every request take `done` rather than being async: no promise and no microtask each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  app.setErrorHandler(errorHandler(docsUrl));

  app.setNotFoundHandler((request, reply) =>
    sendFailure(docsUrl, request, reply, {
      kind: 'not_found',
      detail: 'There is no such endpoint. The API is described at /openapi.json.',
    }),
  );
}

/** The error handler; also fastify's `frameworkErrors` (errors before routing, e.g. a bad URL). */
export function errorHandler(docsUrl: string) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const failure = failureOf(error);
    if (failure) return sendFailure(docsUrl, request, reply, failure);
    request.log.error({ err: error, requestId: request.id }, 'request failed');
    return sendFailure(docsUrl, request, reply, { kind: 'internal_server_error', detail: INTERNAL_DETAIL });
  };
}

/**
 * fastify's clientErrorHandler: a request too malformed to reach the router (bad HTTP) gets the
 * envelope on the raw socket.
 */
export function clientErrorHandler(docsUrl: string) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) return;
    const requestId = newRequestId();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      errorEnvelope({
        kind: 'invalid_input',
        detail: tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.',
        requestId,
        docsUrl,
        ...(tooLarge ? { status: 431 } : {}),
      }),
    );
    const statusLine = tooLarge ? 'HTTP/1.1 431 Request Header Fields Too Large' : 'HTTP/1.1 400 Bad Request';
    socket.end(
      [
        statusLine,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: ${requestId}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  };
}
