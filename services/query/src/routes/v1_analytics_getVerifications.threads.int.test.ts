/**
 * Which thread answers (verifications/read-pool.ts weighQuery), against the real service, Redis and
 * its pool of one read worker: a query filtered by identity whose only bound on its rows is the key
 * dictionary's size is tried on the main thread, and handed to the worker when its rows turn out
 * many; every answer equals the oracle's, whichever thread built it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { oracle, parseQuery } from '@va/core';
import { queryHarness, type QueryHarness } from '../testing/harness';

const PATH = '/v1/analytics.getVerifications';
const DAY = 86_400_000;
/** Keys in the dictionary: 100 keys × 28 days by day is over the main thread's 2,000 rows. */
const KEYS = 100;

let h: QueryHarness;
let key: string;
const events: VerificationEvent[] = [];

beforeAll(async () => {
  h = await queryHarness('query threads', { env: { QUERY_WORKERS: '1' } });
  key = await h.rootKey();
  await h.registerApi('api_main');
  const event = (n: number, keyId: string, externalId: string, daysAgo: number): VerificationEvent => ({
    requestId: `r${n}`,
    time: h.now - daysAgo * DAY - 60_000,
    workspaceId: 'ws_1',
    apiId: 'api_main',
    keyId,
    outcome: n % 5 === 0 ? 'RATE_LIMITED' : 'VALID',
    identity: { id: `id_${externalId}`, externalId },
  });
  // "many" used every key of the dictionary; "few" two of them.
  for (let k = 0; k < KEYS; k++) events.push(event(events.length, `k${k}`, 'many', k % 20));
  for (let n = 0; n < 30; n++) events.push(event(events.length, `k${n % 2}`, 'few', n % 25));
  await h.seed(events);
});

afterAll(async () => {
  await h.close();
});

const answered = async (): Promise<Record<string, number>> => {
  const text = await h.metrics();
  return Object.fromEntries(
    [...text.matchAll(/^va_query_answered_total\{thread="(\w+)"\} (\d+)$/gm)].map((m) => [
      m[1]!,
      Number(m[2]),
    ]),
  );
};

async function expectOracle(qs: string): Promise<void> {
  const parsed = parseQuery(new URLSearchParams(qs), { now: h.now, maxRows: h.config.maxRows });
  if (!parsed.ok) throw new Error(`invalid query ${qs}`);
  const expected = oracle(events, parsed.query, {
    now: h.now,
    maxRows: h.config.maxRows,
    retention: h.config.retention,
  });
  if (!expected.ok) throw new Error(`oracle refused ${qs}`);
  const response = await h.get(`${PATH}?${qs}`, key);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json(), qs).toEqual(expected.rows);
}

/** Asks `qs`, expects the oracle's rows, and that `thread` built the answer (no other thread counted one). */
async function expectAnsweredOn(qs: string, thread: 'main' | 'worker' | 'worker_after_main'): Promise<void> {
  const before = await answered();
  await expectOracle(qs);
  const after = await answered();
  for (const t of ['main', 'worker', 'worker_after_main'])
    expect(after[t]! - before[t]!, `${qs}: ${t}`).toBe(t === thread ? 1 : 0);
}

describe('the thread that answers', () => {
  const month = (filter: string) =>
    `apiId=api_main${filter}&groupBy=key&groupBy=day&start=${h.now - 27 * DAY}`;

  it("one identity's few keys by day: on the main thread, though the key dictionary allows 2,800 rows", async () => {
    await expectAnsweredOn(month('&externalId=few'), 'main');
  });

  it("an identity's rows over the main thread's share: tried there, then built by the worker", async () => {
    await expectAnsweredOn(month('&externalId=many'), 'worker_after_main');
  });

  it('a query without an identity filter over as many rows: straight to the worker', async () => {
    await expectAnsweredOn(month(''), 'worker');
  });
});
