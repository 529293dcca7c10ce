/**
 * Benchmark (not a test): the same query over 1 month, 1 year and 3 years of daily slices,
 * on a large data set kept the way production keeps it (hour buckets for the last 35 days,
 * day and month rollups for everything, compacted by compactApi). Measures the whole query
 * path through the query service's HTTP handler (fastify inject: auth, parse, planReads,
 * Redis reads, rows), and prints how many buckets the planner reads with and without rollups.
 *
 *   REDIS_URL=redis://127.0.0.1:16997 npx tsx services/compactor/bench/range-query.ts
 *
 * Env: BENCH_TUPLES_PER_HOUR (default 20), BENCH_KEYS (200), BENCH_RUNS (30). Writes under a
 * fresh key prefix and deletes it afterwards. Refuses the shared Redis on port 6379.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig } from '@va/config';
import type { HourGranularity } from '@va/contracts';
import { DAY_MS, horizonsAt, hourOf, planReads } from '@va/core';
import {
  applyApiBatches,
  compactApi,
  createRootKey,
  DictionaryWriter,
  emptyMissing,
  expand,
  registerApi,
  readCounts,
  TupleCounter,
  type CubeQuery,
  type KeySpace,
} from '@va/store';
import { createServer } from '@va/query';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const TUPLES_PER_HOUR = env('BENCH_TUPLES_PER_HOUR', 20);
const KEYS = env('BENCH_KEYS', 200);
const RUNS = env('BENCH_RUNS', 30);
const YEARS = 3;

const config = loadConfig();
if (/:6379(\/|$)/.test(config.redisUrl)) throw new Error('refusing the shared Redis on 6379: set REDIS_URL');
const prefix = `bench-rollups-${randomBytes(3).toString('hex')}`;
const space: KeySpace = { prefix, generation: 1 };
const apiId = 'api_bench';
const redis = new Redis(config.redisUrl);
const now = Date.now();
const nowHour = hourOf(now);

/** Deterministic pseudo-random numbers (mulberry32). */
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
};

/** Writes 3 years and 2 weeks of data through the ingest write path (a week per batch), then compacts. */
async function load(): Promise<number> {
  const dicts = new DictionaryWriter(redis, space);
  const missing = emptyMissing();
  for (let k = 0; k < KEYS; k++) missing.k.add(`key_${k}`);
  for (let i = 0; i < 50; i++) missing.i.add(`id_${i}\next_${i}`);
  for (const s of ['', 'a', 'b', 'a,b', 'c', 'a,c', 'b,c', 'a,b,c', 'd', 'a,d']) missing.s.add(s);
  await dicts.assign(new Map([[apiId, missing]]));
  const firstHour = nowHour - (YEARS * 365 + 14) * 24;
  const week = 24 * 7;
  let offset = -1;
  let events = 0;
  for (let from = firstHour; from <= nowHour; from += week) {
    const counter = new TupleCounter();
    for (let h = from; h < Math.min(from + week, nowHour + 1); h++) {
      for (let n = 0; n < TUPLES_PER_HOUR; n++) {
        const i = rand() < 0.3 ? Math.floor(rand() * 50) : -1;
        counter.add(
          h,
          Math.floor(rand() * KEYS),
          i,
          Math.floor(rand() * 10),
          Math.floor(rand() * 9),
          1 + Math.floor(rand() * 5),
        );
      }
    }
    events += counter.events;
    const cmp = Number((await redis.get(`${prefix}:g1:{${apiId}}:cmp`)) ?? -1);
    const [result] = await applyApiBatches(redis, space, [
      {
        apiId,
        increments: expand(counter, { now, retention: config.retention, cmp }),
        cas: { offsetField: 'bench/0', expectedOff: offset, newOff: offset + 1, expectedCmp: cmp },
      },
    ]);
    if (result?.status !== 'ok') throw new Error(`write failed: ${JSON.stringify(result)}`);
    offset++;
  }
  // Whatever the hour buckets hold (the last 35 days) goes into the rollups, as the compactor does.
  await compactApi(redis, space, apiId, { closedBound: nowHour - 1, retention: config.retention, now });
  return events;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function main(): Promise<void> {
  process.stdout.write(
    `loading ${YEARS} years, ${TUPLES_PER_HOUR} tuples/hour, ${KEYS} keys into ${prefix} ...\n`,
  );
  const t0 = performance.now();
  const events = await load();
  process.stdout.write(`loaded ${events} events in ${((performance.now() - t0) / 1000).toFixed(1)} s\n\n`);

  await registerApi(redis, prefix, apiId, 'ws_bench');
  const { key } = await createRootKey(redis, prefix, {
    workspaceId: 'ws_bench',
    permissions: ['api.*.read_api'],
    now,
  });
  const app = await createServer({ redis, config: { ...config, keyPrefix: prefix }, now: () => now });
  const cmp = Number(await redis.get(`${prefix}:g1:{${apiId}}:cmp`));
  const horizons = horizonsAt(now, config.retention);

  const ranges = [
    ['1 month', 30],
    ['1 year', 365],
    ['3 years', 3 * 365],
  ] as const;
  // The cube each query reads, as the query service chooses it (codes follow the load order).
  const none = {
    keys: null,
    identities: null,
    sets: null,
    group: { key: false, identity: false, set: false },
  };
  /** planReads + readCounts, RUNS times after 5 warm-up runs; sorted times (ms). */
  async function planAndRead(start: number, compactedThrough: number | null, cubeQuery: CubeQuery) {
    const input = {
      startHour: hourOf(start),
      endHour: nowHour,
      granularity: 'day' as HourGranularity,
      compactedThrough,
      horizons,
      dataThroughHour: hourOf(now + 5 * 60_000),
    };
    const plan = planReads(input);
    const direct: number[] = [];
    const planning: number[] = [];
    for (let run = 0; run < RUNS + 5; run++) {
      const t = performance.now();
      const p = planReads(input);
      const planned = performance.now();
      const read = await readCounts(redis, space, apiId, cubeQuery, p.reads, compactedThrough);
      if (!read.ok && compactedThrough === cmp) throw new Error('compaction moved during the benchmark');
      if (run >= 5) {
        planning.push(planned - t);
        direct.push(performance.now() - t);
      }
    }
    direct.sort((a, b) => a - b);
    planning.sort((a, b) => a - b);
    return { plan, direct, planning };
  }

  const queries: [string, string, CubeQuery][] = [
    ['groupBy=day', '', { ...none, cube: 't' }],
    ['groupBy=day&keyId=key_7', '&keyId=key_7', { ...none, cube: 'k', keys: [7] }],
    ['groupBy=day&tag=a', '&tag=a', { ...none, cube: 's', sets: [1, 3, 5, 7, 9] }],
  ];
  const lines: string[] = [];
  const p50: Record<string, number> = {};
  const p50direct: Record<string, number> = {};
  for (const [label, extra, cubeQuery] of queries) {
    for (const [range, days] of ranges) {
      const start = now - days * DAY_MS;
      const url = `/v1/analytics.getVerifications?apiId=${apiId}&start=${start}&end=${now}&groupBy=day${extra}`;
      const { plan, direct, planning } = await planAndRead(start, cmp, cubeQuery);
      p50direct[`${label}|${range}`] = percentile(direct, 0.5);
      const times: number[] = [];
      let rows = 0;
      let precision = 'hour';
      for (let run = 0; run < RUNS + 5; run++) {
        const t = performance.now();
        const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
        const ms = performance.now() - t;
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
        if (run >= 5) times.push(ms);
        rows = (res.json() as unknown[]).length;
        precision = String(res.headers['x-precision'] ?? 'hour');
      }
      times.sort((a, b) => a - b);
      p50[`${label}|${range}`] = percentile(times, 0.5);
      const hourOnly = nowHour - hourOf(start) + 1;
      lines.push(
        [
          label.padEnd(26),
          range.padEnd(8),
          `plan ${percentile(planning, 0.5).toFixed(2).padStart(6)} ms`,
          `plan+read p50 ${percentile(direct, 0.5).toFixed(1).padStart(6)} ms`,
          `http p50 ${percentile(times, 0.5).toFixed(1).padStart(6)} ms`,
          `p90 ${percentile(times, 0.9).toFixed(1).padStart(6)} ms`,
          `rows ${String(rows).padStart(6)}`,
          `reads ${String(plan.reads.length).padStart(5)} (${hourOnly} hours without rollups)`,
          `precision ${precision}`,
        ].join('  '),
      );
    }
    // Baseline: the same month read from hour buckets alone, as if nothing had been compacted.
    const base = await planAndRead(now - 30 * DAY_MS, null, cubeQuery);
    p50direct[`${label}|1 month, hours only`] = percentile(base.direct, 0.5);
    lines.push(
      [
        label.padEnd(26),
        '1 month, hour buckets only (cmp = null)'.padEnd(8),
        `plan+read p50 ${percentile(base.direct, 0.5).toFixed(1).padStart(6)} ms`,
        `reads ${String(base.plan.reads.length).padStart(5)}`,
      ].join('  '),
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
  for (const [label] of queries) {
    for (const [what, table] of [
      ['plan+read', p50direct],
      ['http', p50],
    ] as const) {
      const month = table[`${label}|1 month`]!;
      const ratio = (range: string) => (table[`${label}|${range}`]! / month).toFixed(2);
      process.stdout.write(
        `${label} ${what}: 1 year / 1 month = ${ratio('1 year')}x, 3 years / 1 month = ${ratio('3 years')}x\n`,
      );
    }
    const hoursOnly = p50direct[`${label}|1 month, hours only`]!;
    process.stdout.write(
      `${label} plan+read: 1 year with rollups / 1 month from hour buckets = ${(p50direct[`${label}|1 year`]! / hoursOnly).toFixed(2)}x\n`,
    );
  }
  await app.close();
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
  });
