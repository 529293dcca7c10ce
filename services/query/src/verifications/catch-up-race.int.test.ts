// Queries raced against compaction step by step: before every round trip of a query, the
// compaction point moves a random number of hours, so that every interleaving of
// plan, read and compaction the catch-up test reaches by chance is reached on purpose.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { DAY_MS, hourOf, oracle, parseQuery } from '@va/core';
import { loadConfig, type Config } from '@va/config';
import {
  apiKeys,
  compactApi,
  readCompactedThrough,
  registerApi,
  SectionCache,
  type RedisClient,
} from '@va/store';
import { deletePrefix } from '@va/store/testing';
import { seedEvents } from '@va/ingest/testing';
import { jsonBytes } from '../http/json-body';
import { readAnswerJson, type ReadDeps } from './read-answer';
import { DictionaryCache } from './dictionary-cache';
import { hourlyEvents } from './fixtures/hourly-events';
import { scaled } from '@va/testkit/time';

const NOW = Date.now();
const HOURS = 60 * 24;
/**
 * Rounds (each its own API and random sequence: even rounds keep a section cache, every third
 * moves compaction by up to 4 hours a step, the others by up to 40). Rounds 1, 4 and 26 by
 * default: 4 and 26 counted hours past the range's end before the fix of a month read while open
 * (read.ts readsDependOnCompaction). RACE_ROUNDS=n runs rounds 0 .. n-1 (30: ~5 minutes).
 */
const ROUNDS = process.env.RACE_ROUNDS
  ? Array.from({ length: Number(process.env.RACE_ROUNDS) }, (_, n) => n)
  : [1, 4, 26];

let config: Config;
let redis: Redis;
let prefix: string;

beforeAll(async () => {
  prefix = `t-race-${Math.random().toString(36).slice(2, 8)}`;
  config = loadConfig({ REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix });
  redis = new Redis(config.redisUrl);
});
afterAll(async () => {
  await deletePrefix(config.redisUrl, prefix);
  redis.disconnect();
});

/** `redis` whose pipelines first let `step` run (the compactor moving between round trips). */
function racing(step: () => Promise<void>): RedisClient {
  return new Proxy(redis, {
    get(target, p) {
      if (p === 'pipeline') {
        return () => {
          const pipeline = target.pipeline();
          const exec = pipeline.exec.bind(pipeline);
          pipeline.exec = (async () => {
            await step();
            return exec();
          }) as typeof pipeline.exec;
          return pipeline;
        };
      }
      const value = Reflect.get(target, p, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const QUERIES = [
  'groupBy=day',
  'groupBy=month',
  '',
  `start=${NOW - 40 * DAY_MS}&groupBy=day`,
  `start=${NOW - 59 * DAY_MS}&end=${NOW - 20 * DAY_MS}`,
  `start=${NOW - 50 * DAY_MS}&end=${NOW - 2 * DAY_MS}&groupBy=hour`,
  `start=${NOW - 45 * DAY_MS}&end=${NOW - 10 * DAY_MS}&groupBy=month`,
  `start=${NOW - 33 * DAY_MS}&end=${NOW - 31 * DAY_MS}`,
];

describe('queries raced against compaction round trip by round trip', () => {
  for (const round of ROUNDS) {
    it(`round ${round}`, { timeout: scaled(300_000) }, async () => {
      const api = `api_race_${round}`;
      await registerApi(redis, prefix, api, 'ws_1');
      const events = hourlyEvents(api, NOW, HOURS);
      await seedEvents(redis, events, { prefix, now: NOW, retention: config.retention });
      const space = { prefix, generation: 1 };
      const bound = hourOf(NOW) - 2;
      let random = round * 7919 + 1;
      const next = () => (random = (random * 48271) % 2147483647) / 2147483647;
      const step = async () => {
        const k = next() < 0.5 ? 0 : Math.floor(next() ** 2 * (round % 3 === 0 ? 4 : 40));
        // A held compaction does not move (the reader's hold, read-answer.ts).
        if (k > 0 && (await redis.exists(apiKeys(space, api).compactionHold)) === 0)
          await compactApi(redis, space, api, {
            closedBound: bound,
            retention: config.retention,
            now: NOW,
            maxHours: k,
          });
      };
      const deps: ReadDeps = {
        redis: racing(step),
        config,
        now: () => NOW,
        dictionaries: new DictionaryCache(redis),
        ...(round % 2 === 0 && { sections: new SectionCache(64 * 2 ** 20) }),
      };
      const failures: string[] = [];
      for (let asked = 0; ; asked++) {
        const cmp = await readCompactedThrough(redis, space, api);
        if (cmp === bound && asked % QUERIES.length === 0) break;
        const qs = `apiId=${api}&${QUERIES[asked % QUERIES.length]}`;
        const parsed = parseQuery(new URLSearchParams(qs), { now: NOW, maxRows: 100_000 });
        if (!parsed.ok) throw new Error(qs);
        const expected = oracle(events, parsed.query, {
          now: NOW,
          maxRows: 100_000,
          retention: config.retention,
        });
        if (!expected.ok) throw new Error(qs);
        const before = await readCompactedThrough(redis, space, api);
        const got = jsonBytes((await readAnswerJson(deps, space, parsed.query, NOW)).rows).toString();
        const after = await readCompactedThrough(redis, space, api);
        const total = (rows: readonly { total: number }[]) => rows.reduce((s, r) => s + r.total, 0);
        if (got !== JSON.stringify(expected.rows)) {
          const gotRows = JSON.parse(got) as { total: number }[];
          failures.push(`${qs} cmp ${before}..${after}: total ${total(gotRows)} vs ${total(expected.rows)}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }
});
