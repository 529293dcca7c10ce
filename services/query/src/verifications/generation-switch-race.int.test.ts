// Queries raced against a rebuild's switch and the deletion of the old generation (#39 item 3): the
// query service reads through a proxy that delays every reply, and after the query's k-th command
// (k = 1, 2, ... until the query ends) the current generation g is switched to g + 1 (which holds
// the same counts: copied with a boundary after every event, as `rebuild --since` carries old
// periods over) and g is deleted at once. A query that read `<p>:gen` = g before the switch must
// not answer from the deleted g: it answers as the oracle (read again on g + 1), or 503.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope } from '@va/contracts';
import { DAY_MS, dayOfHour, hourOf, hoursOfMonth, monthOfHour, oracle, parseQuery } from '@va/core';
import { Redis } from 'ioredis';
import {
  copyApiGeneration,
  deleteGeneration,
  readGeneration,
  switchGeneration,
  transitionRebuild,
  watermarkKey,
  type KeySpace,
} from '@va/store';
import type { App } from '../http/app';
import { createServer } from '../server';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { hourlyEvents } from './fixtures/hourly-events';
import { scaled } from '@va/testkit/time';
import { startRedisProxy, type RedisProxy } from '@va/testkit/support';

const PATH = '/v1/analytics.getVerifications';
const API = 'api_gen_race';
const NOW = Date.now();
const HOURS = 5 * 24;
const REPLY_DELAY_MS = 40;
const QUERIES = ['groupBy=day', `start=${NOW - 2 * DAY_MS}&groupBy=key,hour`];

let h: QueryHarness;
let key: string;
let proxy: RedisProxy;
let proxied: Redis;
let app: App;
const events = hourlyEvents(API, NOW, HOURS, 3);

beforeAll(async () => {
  h = await queryHarness('gen-race', { now: NOW });
  key = await h.rootKey();
  await h.registerApi(API);
  await h.seed(events);
  proxy = await startRedisProxy(h.config.redisUrl, REPLY_DELAY_MS);
  proxied = new Redis(proxy.url, { maxRetriesPerRequest: 2 });
  app = await createServer({ redis: proxied, config: h.config, now: () => NOW });
});
afterAll(async () => {
  await app?.close();
  proxied?.disconnect();
  await proxy?.close();
  await h.close();
});

function expectedRows(qs: string) {
  const parsed = parseQuery(new URLSearchParams(qs), { now: NOW, maxRows: 100_000 });
  if (!parsed.ok) throw new Error(qs);
  const expected = oracle(events, parsed.query, {
    now: NOW,
    maxRows: 100_000,
    retention: h.config.retention,
  });
  if (!expected.ok) throw new Error(qs);
  return expected.rows;
}

/** The first month after every event: the copy carries every bucket before it. */
const BOUNDARY = (() => {
  const month = monthOfHour(hourOf(NOW)) + 2;
  const hour = hoursOfMonth(month)[0]!;
  return { hour, day: dayOfHour(hour), month };
})();

/** g + 1 holding what g holds, ready to switch to (what a rebuild has built by its `compacting` status). */
async function prepareNext(): Promise<number> {
  const prefix = h.config.keyPrefix;
  const g = await readGeneration(h.redis, prefix);
  const from: KeySpace = { prefix, generation: g };
  const to: KeySpace = { prefix, generation: g + 1 };
  expect((await copyApiGeneration(h.redis, from, to, API, BOUNDARY)).status).toBe('copied');
  // The rebuild's consumer would have caught up with every partition of g.
  const wm = await h.redis.hgetall(watermarkKey(from));
  await h.redis.hset(watermarkKey(to), wm);
  const begun = await transitionRebuild(
    h.redis,
    prefix,
    [null, 'done'],
    'compacting',
    { source: g, target: g + 1 },
    true,
  );
  expect(begun.ok).toBe(true);
  return g;
}

/** The switch from g to g + 1, then g's deletion at once (the CLI waits 2 s for live writers). */
async function switchAndDelete(g: number): Promise<void> {
  const prefix = h.config.keyPrefix;
  expect(await switchGeneration(h.redis, prefix, g, g + 1, NOW)).toEqual({ status: 'switched' });
  expect(await deleteGeneration(h.redis, prefix, g)).toBeGreaterThan(0);
  expect((await transitionRebuild(h.redis, prefix, ['switched'], 'done')).ok).toBe(true);
}

const ask = (qs: string) => app.inject({ url: `${PATH}?${qs}`, headers: { authorization: `Bearer ${key}` } });

describe('#39 item 3: a query spanning a rebuild switch and the old generation deletion', () => {
  it(
    'equals the oracle or is an error, wherever the switch and deletion fall',
    { timeout: scaled(300_000) },
    async () => {
      const failures: string[] = [];
      let spanned = 0;
      let unavailable = 0;
      for (const q of QUERIES) {
        const qs = `apiId=${API}&${q}`;
        const expected = expectedRows(qs);
        for (let k = 1; ; k++) {
          const g = await prepareNext();
          const sentBefore = proxy.sent.length;
          let answered = false;
          const response = ask(qs).finally(() => (answered = true));
          while (!answered && proxy.sent.length < sentBefore + k) await new Promise((r) => setTimeout(r, 1));
          const during = !answered;
          await switchAndDelete(g);
          const got = await response;
          if (!during) break; // the query needed fewer than k commands: every point was tried
          spanned++;
          if (got.statusCode === 200) {
            const rows = got.json<{ total: number }[]>();
            if (JSON.stringify(rows) !== JSON.stringify(expected)) {
              const total = (list: { total: number }[]) => list.reduce((s, r) => s + r.total, 0);
              failures.push(
                `${q} switched after command ${k}: 200 with total ${total(rows)} of ${total(expected)}`,
              );
            }
          } else if (got.statusCode !== 503) {
            failures.push(`${q} switched after command ${k}: ${got.statusCode} ${got.body.slice(0, 200)}`);
          } else {
            unavailable++;
            const type = got.json<ErrorEnvelope>().error.type;
            if (!type.endsWith('/generation_changed')) failures.push(`${q} after command ${k}: 503 ${type}`);
          }
        }
      }
      expect(spanned).toBeGreaterThanOrEqual(2 * QUERIES.length);
      expect(failures).toEqual([]);
      // One switch per query: the read again on g + 1 answers (503 is for a second switch, below).
      expect(unavailable).toBe(0);
    },
  );

  it(
    'answers 503 generation_changed when every read of the query meets another switch',
    { timeout: scaled(60_000) },
    async () => {
      const qs = `apiId=${API}&${QUERIES[0]}`;
      // Between every reply's arrival and its delivery to the query, however long the switch takes.
      let switches = 0;
      proxy.beforeReply = async () => {
        await switchAndDelete(await prepareNext());
        switches++;
      };
      const got = await ask(qs).finally(() => (proxy.beforeReply = undefined));
      expect(proxy.hookErrors).toEqual([]);
      expect(switches).toBeGreaterThanOrEqual(2);
      expect(got.statusCode, got.body.slice(0, 300)).toBe(503);
      expect(got.json<ErrorEnvelope>().error.type).toBe(`${h.config.docsUrl}/generation_changed`);
      // The generation now current answers whole.
      const after = await ask(qs);
      expect(after.statusCode).toBe(200);
      expect(after.json()).toEqual(expectedRows(qs));
    },
  );
});
