/**
 * GET /v1/analytics.stream against the real service and Redis, through @va/client (fetch + a
 * ReadableStream): the first answer, an update after events are written through the ingest path (whose
 * commit publishes the change signal), resume by Last-Event-ID, one read shared by every stream of a
 * query (the reads counter, not timing), and no stream or query left behind when clients leave or the
 * server closes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AnalyticsClient, StreamAnswer } from '@va/client';
import type { VerificationEvent } from '@va/contracts';
import { HOUR_MS } from '@va/core';
import { queryHarness, type QueryHarness } from '../testing/harness';

// No periodic re-read during a test: every read counted below is the first one or a change signal's.
const ENV = { QUERY_STREAM_REFRESH_MS: '3600000' };
let h: QueryHarness;
let client: AnalyticsClient;
let n = 0;

const event = (apiId: string, over: Partial<VerificationEvent> = {}): VerificationEvent => ({
  requestId: `r${n++}`,
  time: h.now - HOUR_MS,
  workspaceId: 'ws_1',
  apiId,
  keyId: 'key_1',
  outcome: 'VALID',
  ...over,
});

/** A stream's answers one at a time; `close` leaves it. */
function open(c: AnalyticsClient, apiId: string, lastEventId?: string) {
  const controller = new AbortController();
  const answers = c.streamVerifications(
    { apiId },
    { signal: controller.signal, reconnect: false, ...(lastEventId !== undefined && { lastEventId }) },
  );
  return {
    next: async (): Promise<StreamAnswer> => {
      const { value, done } = await answers.next();
      if (done) throw new Error('the stream ended');
      return value;
    },
    ended: async () => (await answers.next()).done,
    close: () => controller.abort(),
  };
}

const total = (answer: StreamAnswer) => answer.datapoints[0]!.total;

/** One sample of a metric from the service's /metrics text. */
async function metric(name: string): Promise<number> {
  const line = (await h.metrics())
    .split('\n')
    .find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? NaN : Number(line.split(' ').at(-1));
}

async function reads(): Promise<number> {
  const text = await h.metrics();
  return text
    .split('\n')
    .filter((l) => l.startsWith('va_query_stream_reads_total{'))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

beforeAll(async () => {
  h = await queryHarness('stream', { env: ENV });
  await h.registerApi('api_s', 'ws_1');
  client = await h.client(await h.rootKey());
});
afterAll(async () => {
  // Node's fetch (undici) opens a spare connection when a request is aborted mid-body, and sends nothing
  // on it; the server's close would wait for its headers timeout (60 s). Every stream is closed by now.
  h?.app.server.closeAllConnections();
  await h?.close();
});

describe('a stream', () => {
  it('sends the current answer, then the new one after events are committed', async () => {
    await h.seed([event('api_s'), event('api_s')]);
    const s = open(client, 'api_s');
    const first = await s.next();
    expect(total(first)).toBe(2);
    expect(first.precision).toBe('hour');
    expect(first.timeZone).toBe('UTC');
    expect(first.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    await h.seed([event('api_s', { outcome: 'RATE_LIMITED' })]);
    const second = await s.next();
    expect(second.datapoints[0]).toMatchObject({ total: 3, valid: 2, rateLimited: 1 });
    expect(second.id).not.toBe(first.id);
    // The same rows getVerifications answers.
    expect(second.datapoints).toEqual((await client.getVerifications({ apiId: 'api_s' })).datapoints);
    s.close();
  });

  it('resumes from Last-Event-ID: the current answer is sent only when it differs', async () => {
    const s = open(client, 'api_s');
    const current = await s.next();
    s.close();
    // Resumed with the current id: the first answer it gets is the one after the next change.
    const resumed = open(client, 'api_s', current.id);
    await h.seed([event('api_s')]);
    const after = await resumed.next();
    expect(total(after)).toBe(total(current) + 1);
    resumed.close();
    // Resumed with an old id: the current answer at once.
    const behind = open(client, 'api_s', current.id);
    expect(await behind.next()).toEqual(after);
    behind.close();
  });

  it('shares one read among every stream of one query, whatever root key of the workspace asks', async () => {
    await h.registerApi('api_shared', 'ws_1');
    const clients = await Promise.all(Array.from({ length: 4 }, async () => h.client(await h.rootKey())));
    const before = await reads();
    const streams = Array.from({ length: 20 }, (_, i) => open(clients[i % clients.length]!, 'api_shared'));
    const firsts = await Promise.all(streams.map((s) => s.next()));
    expect(new Set(firsts.map((a) => a.id)).size).toBe(1);
    expect(await reads()).toBe(before + 1);
    await h.seed([event('api_shared')]);
    const updates = await Promise.all(streams.map((s) => s.next()));
    expect(updates.every((a) => total(a) === 1)).toBe(true);
    // One batch, one signal, one read for the 20 streams.
    expect(await reads()).toBe(before + 2);
    for (const s of streams) s.close();
  });

  it('leaves no stream and no query behind when its clients disconnect', async () => {
    await vi.waitFor(async () => expect(await metric('va_query_streams_open')).toBe(0));
    await h.registerApi('api_gone', 'ws_1');
    const streams = Array.from({ length: 3 }, () => open(client, 'api_gone'));
    await Promise.all(streams.map((s) => s.next()));
    expect(await metric('va_query_streams_open')).toBe(3);
    expect(await metric('va_query_stream_queries')).toBe(1);
    for (const s of streams) s.close();
    await vi.waitFor(async () => {
      expect(await metric('va_query_streams_open')).toBe(0);
      expect(await metric('va_query_stream_queries')).toBe(0);
    });
    // A signal for the API now reads nothing: no group is left to wake.
    const before = await reads();
    await h.seed([event('api_gone')]);
    const s = open(client, 'api_gone');
    expect(total(await s.next())).toBe(1);
    expect(await reads()).toBe(before + 1); // the new stream's first read only
    s.close();
  });
});

describe('server close', () => {
  it('ends every open stream cleanly', async () => {
    const own = await queryHarness('stream close', { env: ENV });
    await own.registerApi('api_c', 'ws_1');
    const c = await own.client(await own.rootKey());
    const s = open(c, 'api_c');
    await s.next();
    await own.close(); // would wait forever for an open stream
    expect(await s.ended()).toBe(true);
  });
});
