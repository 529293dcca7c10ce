import { describe, expect, it } from 'vitest';
import { ERROR_KINDS } from '@va/contracts';
import { errorFromAnswer, UNKNOWN_ERROR_TYPE, type ErrorAnswer } from './error-mapping';
import { AnalyticsClientError, ApiError } from './errors';

const answer = (status: number, body: string, headers: Record<string, string> = {}): ErrorAnswer => ({
  status,
  statusText: '',
  headers: new Headers(headers),
  body,
  retryAfterMs: undefined,
  attempts: 1,
});

describe('errorFromAnswer', () => {
  it("carries the envelope's request id, status, type, title, detail and errors[]", () => {
    const envelope = {
      meta: { requestId: 'req_1' },
      error: {
        title: 'Bad Request',
        detail: 'The query is not valid; see errors.',
        status: 400,
        type: 'https://docs.example/errors/invalid_input',
        errors: [
          { location: 'query.limit', message: 'must be at most 100000', fix: 'Set limit to 1..100000.' },
          { location: 'query.start', message: 'must be an integer' },
        ],
      },
    };
    const error = errorFromAnswer(answer(400, JSON.stringify(envelope), { 'x-request-id': 'req_other' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(AnalyticsClientError);
    expect(error).toMatchObject({
      name: 'ApiError',
      status: 400,
      requestId: 'req_1',
      type: 'https://docs.example/errors/invalid_input',
      kind: 'invalid_input',
      title: 'Bad Request',
      detail: 'The query is not valid; see errors.',
      errors: envelope.error.errors,
    });
    expect(error.message).toBe(
      '400 Bad Request: The query is not valid; see errors. ' +
        '(query.limit: must be at most 100000; query.start: must be an integer)',
    );
  });

  it.each(Object.entries(ERROR_KINDS).map(([kind, { status }]) => [kind, status] as const))(
    "knows the contract's kind %s",
    (kind, status) => {
      const body = JSON.stringify({
        meta: { requestId: 'r' },
        error: { title: 't', detail: 'd', status, type: `https://x/errors/${kind}`, errors: [] },
      });
      expect(errorFromAnswer(answer(status, body)).kind).toBe(kind);
    },
  );

  it('maps an answer that is not an envelope (a proxy page) with the header request id', () => {
    const error = errorFromAnswer({
      ...answer(502, '<html>Bad gateway</html>', { 'x-request-id': 'req_proxy' }),
      statusText: 'Bad Gateway',
    });
    expect(error).toMatchObject({
      status: 502,
      type: UNKNOWN_ERROR_TYPE,
      kind: undefined,
      title: 'Bad Gateway',
      detail: 'Bad Gateway',
      requestId: 'req_proxy',
      errors: [],
    });
  });

  it('keeps only well-formed errors[] entries of a damaged envelope', () => {
    const body = JSON.stringify({
      error: { type: 7, errors: [{ location: 'query.x', message: 'm' }, { location: 1 }, 'junk', null] },
    });
    const error = errorFromAnswer(answer(400, body));
    expect(error.errors).toEqual([{ location: 'query.x', message: 'm' }]);
    expect(error.type).toBe(UNKNOWN_ERROR_TYPE);
    expect(error.title).toBe('HTTP 400');
    expect(error.requestId).toBeUndefined();
  });
});
