/**
 * GET /v1/analytics.stream's checks, against the real service and Redis: before the stream starts, the
 * same answers as getVerifications (401, 400, 403, 404 in that order, one envelope); a read token's
 * stream is its scope only, never shared with a wider query, and another API or externalId is 403; a
 * credential revoked while its stream is open ends the stream with an error event, not data; the caps
 * per root key (429) and per process (503 too_many_streams).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type AnalyticsClient, type GetVerificationsParams, type StreamAnswer } from '@va/client';
import type { ErrorEnvelope, VerificationEvent } from '@va/contracts';
import { HOUR_MS } from '@va/core';
import { queryHarness, type QueryHarness } from '../testing/harness';

const K1 = { kid: 'k1', secret: 'first-secret-of-at-least-32-bytes!!' };
const ENV = { READ_TOKEN_KEYS: `${K1.kid}:${K1.secret}`, QUERY_STREAM_REFRESH_MS: '3600000' };
const alice = { id: 'id_alice', externalId: 'alice@example.com' };
const bob = { id: 'id_bob', externalId: 'bob@example.com' };
let h: QueryHarness;
let rootKey: string;
let aliceToken: string;
let n = 0;

const event = (apiId: string, identity?: VerificationEvent['identity']): VerificationEvent => ({
  requestId: `r${n++}`,
  time: h.now - HOUR_MS,
  workspaceId: 'ws_1',
  apiId,
  keyId: 'key_1',
  outcome: 'VALID',
  ...(identity && { identity }),
});

function open(c: AnalyticsClient, params: GetVerificationsParams) {
  const controller = new AbortController();
  const answers = c.streamVerifications(params, { signal: controller.signal, reconnect: false });
  return {
    next: async (): Promise<StreamAnswer> => {
      const { value, done } = await answers.next();
      if (done) throw new Error('the stream ended');
      return value;
    },
    close: () => controller.abort(),
  };
}

/** The first failure of a stream that is refused before it starts. */
async function refusedStream(c: AnalyticsClient, params: GetVerificationsParams): Promise<ApiError> {
  const error = await open(c, params)
    .next()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

beforeAll(async () => {
  h = await queryHarness('stream security', { env: ENV });
  await h.registerApi('api_1', 'ws_1');
  await h.registerApi('api_2', 'ws_1');
  await h.registerApi('api_elsewhere', 'ws_2');
  await h.seed([event('api_1', alice), event('api_1', alice), event('api_1', bob), event('api_2', alice)]);
  rootKey = await h.rootKey();
  const minter = await h.client(await h.rootKey(['api.*.create_read_token']));
  aliceToken = (await minter.createReadToken({ apiId: 'api_1', externalId: alice.externalId })).token;
});
afterAll(async () => {
  h?.app.server.closeAllConnections(); // fetch's spare connections (see v1_analytics_stream.int.test.ts)
  await h?.close();
});

describe('before the stream starts: the answers of getVerifications', () => {
  const cases: [string, () => string | undefined, string][] = [
    ['no credential', () => undefined, 'apiId=api_1'],
    ['an unknown root key', () => 'vak_unknownunknownunknownunknown12', 'apiId=api_1'],
    ['an invalid query', () => rootKey, 'apiId=api_1&limit=0&groupBy=hour&groupBy=day'],
    ['an unknown parameter', () => rootKey, 'apiId=api_1&bogus=1'],
    ['another workspace', () => rootKey, 'apiId=api_elsewhere'],
    ["a read token's other API", () => aliceToken, 'apiId=api_2'],
    ["a read token's other externalId", () => aliceToken, `apiId=api_1&externalId=${bob.externalId}`],
  ];
  it.each(cases)('%s', async (_, credential, qs) => {
    const key = credential();
    const stream = await h.get(`/v1/analytics.stream?${qs}`, key);
    const query = await h.get(`/v1/analytics.getVerifications?${qs}`, key);
    expect(query.statusCode).toBeGreaterThanOrEqual(400);
    expect(stream.statusCode, stream.body).toBe(query.statusCode);
    const { error } = stream.json<ErrorEnvelope>();
    expect(error).toEqual(query.json<ErrorEnvelope>().error);
    expect(stream.json<ErrorEnvelope>().meta.requestId).toBe(stream.headers['x-request-id']);
    expect(stream.headers['content-type']).toContain('application/json');
  });

  it('403 for a root key without the read permission', async () => {
    const noRead = await h.client(await h.rootKey(['api.*.create_read_token']));
    expect((await refusedStream(noRead, { apiId: 'api_1' })).status).toBe(403);
  });
});

describe("a read token's stream", () => {
  it("is its end user's answer, not the wider one of the same parameters", async () => {
    const root = open(await h.client(rootKey), { apiId: 'api_1', groupBy: ['identity'] });
    const token = open(await h.client(aliceToken), { apiId: 'api_1', groupBy: ['identity'] });
    const [wide, own] = [await root.next(), await token.next()];
    expect(wide.datapoints.map((r) => r.identity?.externalId).sort()).toEqual([
      alice.externalId,
      bob.externalId,
    ]);
    expect(own.datapoints).toEqual([expect.objectContaining({ identity: alice, total: 2 })]);
    // A change of bob's pushes to the root key's stream; alice's stream gets nothing of it.
    await h.seed([event('api_1', bob), event('api_1', alice)]);
    const ownNext = await token.next();
    expect(ownNext.datapoints).toEqual([expect.objectContaining({ identity: alice, total: 3 })]);
    expect(JSON.stringify(ownNext)).not.toContain(bob.externalId);
    root.close();
    token.close();
  });

  it('cannot be widened: another externalId or API is refused with 403', async () => {
    const c = await h.client(aliceToken);
    expect((await refusedStream(c, { apiId: 'api_1', externalId: bob.externalId })).status).toBe(403);
    expect((await refusedStream(c, { apiId: 'api_2' })).status).toBe(403);
  });
});

describe('a credential revoked while its stream is open', () => {
  it('ends the stream with an error event (401) at the next answer, and sends no data after', async () => {
    const doomed = await h.rootKey();
    const s = open(await h.client(doomed), { apiId: 'api_2' });
    await s.next();
    await h.revoke(doomed);
    await h.seed([event('api_2')]);
    const error = await s.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
  });
});

describe('the stream caps', () => {
  it('429 beyond QUERY_STREAM_MAX_PER_KEY, 503 too_many_streams beyond QUERY_STREAM_MAX', async () => {
    const own = await queryHarness('stream caps', {
      env: { ...ENV, QUERY_STREAM_MAX: '3', QUERY_STREAM_MAX_PER_KEY: '2' },
    });
    try {
      await own.registerApi('api_1', 'ws_1');
      const a = await own.client(await own.rootKey(), { retry: false });
      const b = await own.client(await own.rootKey(), { retry: false });
      const c = await own.client(await own.rootKey(), { retry: false });
      const held = [open(a, { apiId: 'api_1' }), open(a, { apiId: 'api_1' }), open(b, { apiId: 'api_1' })];
      await Promise.all(held.map((s) => s.next()));
      const perKey = await refusedStream(a, { apiId: 'api_1' });
      expect(perKey.status).toBe(429);
      expect(perKey.retryAfterMs).toBe(5_000);
      const full = await refusedStream(c, { apiId: 'api_1' });
      expect(full.status).toBe(503);
      expect(full.type).toBe(`${own.config.docsUrl}/too_many_streams`);
      held[0]!.close();
      // The seat comes back when the stream ends (the server sees the close a moment later).
      let reopened: StreamAnswer | undefined;
      for (let i = 0; i < 50 && !reopened; i++) {
        reopened = await open(c, { apiId: 'api_1' })
          .next()
          .catch(() => undefined);
        if (!reopened) await new Promise((r) => setTimeout(r, 100));
      }
      expect(reopened?.datapoints).toHaveLength(1);
    } finally {
      own.app.server.closeAllConnections();
      await own.close();
    }
  });
});
