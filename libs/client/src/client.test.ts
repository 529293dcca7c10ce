import { describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from './client';
import { ApiError, NetworkError, TimeoutError } from './errors';
import { envelope, FakeClock, json, scriptedFetch, settle } from './testing';

const ROW = {
  valid: 1,
  notFound: 0,
  forbidden: 0,
  usageExceeded: 0,
  rateLimited: 0,
  unauthorized: 0,
  disabled: 0,
  insufficientPermissions: 0,
  expired: 0,
  total: 1,
};

function client(script: Parameters<typeof scriptedFetch>[0], options: Partial<ClientOptions> = {}) {
  const fetch = scriptedFetch(script);
  const clock = new FakeClock(options.timeoutMs === undefined);
  const c = createClient({
    baseUrl: 'http://analytics.test/base',
    token: 'vak_root',
    fetch,
    clock,
    random: () => 0.5,
    timeoutMs: 0,
    ...options,
  });
  return { c, fetch, clock };
}

describe('getVerifications', () => {
  it('sends the query with the bearer token and returns datapoints, precision and request id', async () => {
    const { c, fetch } = client([json(200, [ROW], { 'x-request-id': 'req_1' })], {
      headers: { 'x-trace': 't1' },
    });
    const result = await c.getVerifications({ apiId: 'api_1', keyId: ['k1', 'k2'], groupBy: ['key'] });
    expect(result).toEqual({ datapoints: [ROW], precision: 'hour', requestId: 'req_1', timeZone: 'UTC' });
    expect(fetch.sent).toHaveLength(1);
    const { url, init } = fetch.sent[0]!;
    expect(url.href).toBe(
      'http://analytics.test/base/v1/analytics.getVerifications?apiId=api_1&keyId=k1&keyId=k2&groupBy=key',
    );
    expect(init.method).toBe('GET');
    expect(init.body).toBeUndefined();
    expect(init.headers).toEqual({
      accept: 'application/json',
      'x-trace': 't1',
      authorization: 'Bearer vak_root',
    });
  });

  it('reports X-Precision', async () => {
    const { c } = client([
      json(200, [ROW], { 'x-precision': 'day' }),
      json(200, [], { 'x-precision': 'month' }),
    ]);
    expect((await c.getVerifications({ apiId: 'a' })).precision).toBe('day');
    expect((await c.getVerifications({ apiId: 'a' })).precision).toBe('month');
  });

  it('reports X-Time-Zone: the calendar of the day and month slices', async () => {
    const { c } = client([json(200, [ROW], { 'x-time-zone': 'America/New_York' })]);
    expect((await c.getVerifications({ apiId: 'a' })).timeZone).toBe('America/New_York');
  });

  it('asks a token function before each request', async () => {
    let n = 0;
    const { c, fetch } = client([json(200, []), json(200, [])], { token: async () => `tok_${++n}` });
    await c.getVerifications({ apiId: 'a' });
    await c.getVerifications({ apiId: 'a' });
    expect(fetch.sent.map((s) => (s.init.headers as Record<string, string>).authorization)).toEqual([
      'Bearer tok_1',
      'Bearer tok_2',
    ]);
  });

  it('throws an ApiError carrying the envelope, without retrying a 4xx', async () => {
    const errors = [{ location: 'query.limit', message: 'must be at most 100000', fix: 'Lower it.' }];
    const { c, fetch } = client([json(400, envelope(400, 'invalid_input', 'req_bad', errors))]);
    const error = await c.getVerifications({ apiId: 'a', limit: 1e9 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      kind: 'invalid_input',
      requestId: 'req_bad',
      errors,
      attempts: 1,
    });
    expect(fetch.sent).toHaveLength(1);
  });

  it('refuses a 200 that is not a JSON array', async () => {
    const { c } = client([new Response('<html>', { status: 200 }), json(200, { rows: [] })]);
    await expect(c.getVerifications({ apiId: 'a' })).rejects.toThrow('without JSON');
    await expect(c.getVerifications({ apiId: 'a' })).rejects.toThrow('without an array of datapoints');
  });
});

describe('createReadToken', () => {
  it('posts the request as JSON and returns the token', async () => {
    const minted = { token: 'a.b.c', tokenId: 'id', apiId: 'api_1', externalId: 'e', expiresAt: 1 };
    const { c, fetch } = client([json(200, minted)]);
    expect(await c.createReadToken({ apiId: 'api_1', externalId: 'e', expiresIn: 60 })).toEqual(minted);
    const { url, init } = fetch.sent[0]!;
    expect(url.href).toBe('http://analytics.test/base/v1/analytics.createReadToken');
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"apiId":"api_1","externalId":"e","expiresIn":60}');
    expect(init.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer vak_root',
    });
  });

  it('refuses an answer without a token, and maps errors like reads', async () => {
    const { c } = client([json(200, {}), json(403, envelope(403, 'forbidden', 'req_f'))]);
    await expect(c.createReadToken({ apiId: 'a', externalId: 'e' })).rejects.toThrow('without a read token');
    await expect(c.createReadToken({ apiId: 'a', externalId: 'e' })).rejects.toMatchObject({
      status: 403,
      kind: 'forbidden',
      requestId: 'req_f',
    });
  });
});

describe('listApis', () => {
  it('gets the APIs the credential may read', async () => {
    const list = { apis: [{ apiId: 'api_1' }, { apiId: 'api_2' }] };
    const { c, fetch } = client([json(200, list), json(200, { rows: [] })]);
    expect(await c.listApis()).toEqual(list);
    const { url, init } = fetch.sent[0]!;
    expect(url.href).toBe('http://analytics.test/base/v1/apis.list');
    expect(init.method).toBe('GET');
    expect(init.headers).toMatchObject({ authorization: 'Bearer vak_root' });
    await expect(c.listApis()).rejects.toThrow('without a list of APIs');
  });
});

describe('retries', () => {
  it('waits for Retry-After on 429 and 503, then answers', async () => {
    const { c, fetch, clock } = client([
      json(429, envelope(429, 'rate_limited'), { 'retry-after': '2' }),
      json(503, envelope(503, 'unavailable'), { 'retry-after': '1' }),
      json(200, [ROW]),
    ]);
    const result = await c.getVerifications({ apiId: 'a' });
    expect(result.datapoints).toEqual([ROW]);
    expect(clock.sleeps).toEqual([2000, 1000]);
    expect(fetch.sent).toHaveLength(3);
  });

  it('backs off with jitter when there is no Retry-After, and gives up after maxAttempts', async () => {
    const { c, fetch, clock } = client(
      [
        json(503, envelope(503, 'x')),
        json(503, envelope(503, 'x')),
        json(503, envelope(503, 'x', 'req_last')),
      ],
      { retry: { baseDelayMs: 100 } },
    );
    const error = await c.getVerifications({ apiId: 'a' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, attempts: 3, requestId: 'req_last' });
    expect(clock.sleeps).toEqual([75, 150]); // random 0.5: 3/4 of 100, then of 200
    expect(fetch.sent).toHaveLength(3);
  });

  it('throws at once when Retry-After is longer than it waits for', async () => {
    const { c, fetch } = client([json(429, envelope(429, 'x'), { 'retry-after': '120' })]);
    const error = await c.getVerifications({ apiId: 'a' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 120_000, attempts: 1 });
    expect(fetch.sent).toHaveLength(1);
  });

  it('retries network failures and reports a NetworkError with the cause', async () => {
    const refused = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    const { c, fetch, clock } = client([refused, refused, refused]);
    const error = await c.getVerifications({ apiId: 'a' }).catch((e: unknown) => e);
    expect(fetch.sent).toHaveLength(3);
    expect(clock.sleeps).toEqual([150, 300]);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ attempts: 3, cause: refused });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('does not retry with retry: false', async () => {
    const { c, fetch } = client([json(503, envelope(503, 'x'), { 'retry-after': '1' })], { retry: false });
    await expect(c.getVerifications({ apiId: 'a' })).rejects.toBeInstanceOf(ApiError);
    expect(fetch.sent).toHaveLength(1);
  });
});

describe('timeout and abort', () => {
  it('aborts the request at the deadline and throws a TimeoutError', async () => {
    const { c, fetch, clock } = client(['hang'], { timeoutMs: 5000 });
    const pending = c.getVerifications({ apiId: 'a' }).catch((e: unknown) => e);
    await settle();
    clock.advance(4999);
    await settle();
    expect(fetch.sent[0]!.init.signal!.aborted).toBe(false);
    clock.advance(1);
    const error = await pending;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 5000, attempts: 1 });
    expect(fetch.sent[0]!.init.signal!.aborted).toBe(true);
  });

  it('counts retry waits against the deadline', async () => {
    const { c, fetch, clock } = client([json(429, envelope(429, 'x'), { 'retry-after': '2' }), 'hang'], {
      timeoutMs: 3000,
    });
    const pending = c.getVerifications({ apiId: 'a' }).catch((e: unknown) => e);
    await settle();
    expect(clock.sleeps).toEqual([3000, 2000]); // the deadline, then the Retry-After wait
    clock.advance(2000);
    await settle();
    expect(fetch.sent).toHaveLength(2);
    clock.advance(1000);
    expect(await pending).toMatchObject({ name: 'TimeoutError', attempts: 2 });
  });

  it('does not wait for a Retry-After that ends after the deadline', async () => {
    const { c, fetch } = client([json(503, envelope(503, 'x'), { 'retry-after': '5' })], { timeoutMs: 3000 });
    await expect(c.getVerifications({ apiId: 'a' })).rejects.toMatchObject({ status: 503, attempts: 1 });
    expect(fetch.sent).toHaveLength(1);
  });

  it("rejects with the caller's abort reason, not a TimeoutError", async () => {
    const { c } = client(['hang'], { timeoutMs: 5000 });
    const caller = new AbortController();
    const pending = c.getVerifications({ apiId: 'a' }, { signal: caller.signal }).catch((e: unknown) => e);
    await settle();
    const reason = new Error('user left the page');
    caller.abort(reason);
    expect(await pending).toBe(reason);
    const aborted = AbortSignal.abort(reason);
    await expect(c.getVerifications({ apiId: 'a' }, { signal: aborted })).rejects.toBe(reason);
  });
});
