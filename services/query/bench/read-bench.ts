/**
 * Micro-benchmark of the query read path (meta + dictionaries + plan + readCounts + decodeCells)
 * on a private Redis, for comparing implementations of readCounts in one process.
 *
 *   npx tsx services/query/bench/read-bench.ts seed  [--events 500000] [--days 30]
 *   npx tsx services/query/bench/read-bench.ts memory  (used_memory per counter field; a server of its own)
 *   npx tsx services/query/bench/read-bench.ts minutes-memory  (MEMORY USAGE of the minute buckets, groupBy=minute)
 *   npx tsx services/query/bench/read-bench.ts run   [--rounds 5] [--iterations 20] [--alt <path to read.ts>]
 *
 * REDIS_URL (required; never the shared 6379) is the server to use; the data set lives under the
 * prefix `rb-<events>e-<days>d`. `--alt` names another copy of libs/store/src/read.ts (e.g. the
 * previous version) that `run` alternates with the current one, round by round. `seed` prints its
 * throughput (events/s through the ingest worker's batch processor, and the Redis CPU it took):
 * RETENTION_MINUTES_HOURS=0 seeds without minute buckets, for comparing what they cost. The medium
 * tenant's last 48 hours (its minutes): `seed --events 222222 --days 2` (10M events over 90 days).
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { loadConfig } from '@va/config';
import type { HourGranularity } from '@va/contracts';
import {
  chooseCube,
  horizonsAt,
  hourOf,
  minuteOf,
  parseQuery,
  planMinuteReads,
  planReads,
  type ParsedQuery,
} from '@va/core';
import { compactApi, decodeCells, readApiMeta, readCounts, ReadDictionaries, type KeySpace } from '@va/store';
import { seedEvents } from '@va/ingest/testing';
import { createGenerator } from '@va/testkit';
import { cubeQueryOf, dictionariesOf } from '../src/verifications/cube-query';

const DAY_MS = 86_400_000;
const API = 'medium';

const { values } = parseArgs({
  args: process.argv.slice(3),
  options: {
    events: { type: 'string', default: '500000' },
    days: { type: 'string', default: '30' },
    /** Times in order (a topic's history and live traffic), not drawn independently. */
    ordered: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' },
    iterations: { type: 'string', default: '20' },
    alt: { type: 'string' },
    'max-keys': { type: 'string', multiple: true },
    scenario: { type: 'string', multiple: true },
  },
});
const mode = process.argv[2];
const url = process.env.REDIS_URL;
if (!url || /:6379\b/.test(url)) throw new Error('set REDIS_URL to a private Redis (not 6379)');
const events = Number(values.events);
const days = Number(values.days);
const prefix = `rb-${events}e-${days}d`;
const space: KeySpace = { prefix, generation: 1 };
// Private: only the minute retention comes from the environment (seed with RETENTION_MINUTES_HOURS=0 to compare).
const config = loadConfig({ RETENTION_MINUTES_HOURS: process.env.RETENTION_MINUTES_HOURS });
const redis = new Redis(url);

async function seed(): Promise<void> {
  const now = Date.now();
  await redis.set(`${prefix}:rb-now`, String(now));
  await redis.set(`${prefix}:rb-base`, /used_memory:(\d+)/.exec(await redis.info('memory'))![1]!);
  const gen = createGenerator({
    seed: 1,
    apis: 1,
    workspaces: 1,
    keys: 10_000,
    identities: 2_000,
    startMs: now - Math.round(days * DAY_MS),
    spanMs: Math.round(days * DAY_MS),
    ...(values.ordered && { timeOrdered: events }),
  });
  const chunk = 25_000;
  const cpu = async () => {
    const info = await redis.info('cpu');
    const get = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
    return get('used_cpu_user') + get('used_cpu_sys');
  };
  const [started, redisCpu, ownCpu] = [performance.now(), await cpu(), process.cpuUsage()];
  for (let done = 0; done < events; done += chunk) {
    const batch = Array.from({ length: Math.min(chunk, events - done) }, () => {
      const e = gen.next();
      e.apiId = API;
      e.workspaceId = 'ws_medium';
      return e;
    });
    await seedEvents(redis, batch, { prefix, now, retention: config.retention });
    process.stdout.write(`\rseeded ${done + batch.length}`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\nseeded ${events} events in ${seconds.toFixed(1)} s (${Math.round(events / seconds)} events/s), ` +
      `Redis CPU ${((await cpu()) - redisCpu).toFixed(2)} s, this process's CPU ` +
      `${((process.cpuUsage(ownCpu).user + process.cpuUsage(ownCpu).system) / 1e6).toFixed(2)} s, ` +
      `minute retention ${config.retention.minuteMs} ms`,
  );
  const result = await compactApi(redis, space, API, {
    closedBound: hourOf(now) - 1,
    retention: config.retention,
    now,
  });
  console.log(`\ncompacted ${result.hoursCompacted} hours`);
}

type ReadCounts = typeof readCounts;

const SCENARIOS: Record<string, (now: number) => [string, string][]> = {
  'top10-identities-30d': (now) => [
    ['start', String(now - 30 * DAY_MS)],
    ['groupBy', 'identity'],
    ['orderBy', 'total'],
    ['order', 'desc'],
    ['limit', '10'],
  ],
  'by-tag-30d': (now) => [
    ['start', String(now - 30 * DAY_MS)],
    ['groupBy', 'tag'],
  ],
  'api-30d-by-day': (now) => [
    ['start', String(now - 30 * DAY_MS)],
    ['groupBy', 'day'],
  ],
  'keys-30d-by-key': (now) => [
    ['start', String(now - 30 * DAY_MS)],
    ['groupBy', 'key'],
  ],
  'api-3h-by-minute': (now) => [
    ['start', String(now - 3 * 3_600_000)],
    ['groupBy', 'minute'],
  ],
  'identity-3h-by-minute': (now) => [
    ['start', String(now - 3 * 3_600_000)],
    ['externalId', 'user-1940@example.com'],
    ['groupBy', 'minute'],
  ],
  'keys-3h-by-minute': (now) => [
    ['start', String(now - 3 * 3_600_000)],
    ['groupBy', 'minute'],
    ['groupBy', 'key'],
  ],
};

async function answer(impl: ReadCounts, query: ParsedQuery, now: number, dicts: ReadDictionaries) {
  const [meta] = await Promise.all([
    readApiMeta(redis, space, API, { firstHour: false }),
    dicts.load(dictionariesOf(query)),
  ]);
  const minutes = query.minutes && { ...query.minutes, dataThroughMinute: minuteOf(now + 5 * 60_000) };
  const plan = minutes
    ? planMinuteReads({ ...minutes, granularity: 'minute' })
    : planReads({
        startHour: query.startHour!,
        endHour: query.endHour,
        ...(query.groupBy.granularity && { granularity: query.groupBy.granularity as HourGranularity }),
        compactedThrough: meta.compactedThrough,
        horizons: horizonsAt(now, config.retention),
        dataThroughHour: hourOf(now + 5 * 60_000),
      });
  const read = await impl(redis, space, API, cubeQueryOf(query, dicts), plan.reads, meta.compactedThrough);
  if (!read.ok) throw new Error('compaction moved');
  const cells = await decodeCells(read.counts, dicts);
  return { cells, reads: plan.reads.length };
}

/** A stable digest of cells, to check that both implementations agree. */
function digest(cells: Awaited<ReturnType<typeof decodeCells>>): string {
  return cells
    .map(
      (c) =>
        `${c.slice}|${c.keyId ?? ''}|${c.identity?.externalId ?? ''}|${c.tags?.join(',') ?? ''}|${c.counts}`,
    )
    .sort()
    .join('\n');
}

/** Total usec of every command so far (INFO commandstats), minus the INFO calls themselves. */
async function redisUsec(): Promise<number> {
  const info = await redis.info('commandstats');
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_(\w+):.*?usec=(\d+)/gm)) if (m[1] !== 'info') total += Number(m[2]);
  return total;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function run(): Promise<void> {
  const now = Number(await redis.get(`${prefix}:rb-now`));
  if (!now) throw new Error(`no data set under ${prefix}: run seed first`);
  const impls: [string, ReadCounts][] = [['new', readCounts]];
  for (const maxKeys of (values['max-keys'] ?? []).map(Number)) {
    impls.push([
      `new/${maxKeys}`,
      (r, sp, api, q, reads, cmp) => readCounts(r, sp, api, q, reads, cmp, { maxKeys }),
    ]);
  }
  if (values.alt) {
    const alt = (await import(values.alt)) as { readCounts: ReadCounts };
    impls.push(['alt', alt.readCounts]);
  }
  const rounds = Number(values.rounds);
  const iterations = Number(values.iterations);
  const names = values.scenario?.length ? values.scenario : Object.keys(SCENARIOS);
  for (const name of names) {
    const parsed = parseQuery([['apiId', API], ...SCENARIOS[name]!(now)], { now, maxRows: 100_000 });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const query = parsed.query;
    const times = new Map<string, number[]>(impls.map(([n]) => [n, []]));
    const redisUs = new Map<string, number>(impls.map(([n]) => [n, 0]));
    const digests = new Set<string>();
    let reads = 0;
    for (const [, impl] of impls) {
      const dicts = new ReadDictionaries(redis, space, API);
      for (let w = 0; w < 3; w++) {
        const out = await answer(impl, query, now, dicts);
        reads = out.reads;
        if (w === 0) digests.add(digest(out.cells));
      }
    }
    for (let r = 0; r < rounds; r++) {
      for (const [n, impl] of r % 2 === 0 ? impls : [...impls].reverse()) {
        const dicts = new ReadDictionaries(redis, space, API);
        await dicts.load(dictionariesOf(query));
        const before = await redisUsec();
        for (let i = 0; i < iterations; i++) {
          const t0 = process.hrtime.bigint();
          await answer(impl, query, now, dicts);
          times.get(n)!.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        redisUs.set(n, redisUs.get(n)! + (await redisUsec()) - before);
      }
    }
    const line = impls
      .map(([n]) => {
        const t = times.get(n)!;
        const redisMs = redisUs.get(n)! / t.length / 1000;
        return `${n} p50 ${pct(t, 50).toFixed(2)} ms p90 ${pct(t, 90).toFixed(2)} ms (Redis ${redisMs.toFixed(1)} ms/query)`;
      })
      .join(' | ');
    console.log(
      `${name} (cube ${chooseCube(query)}, ${reads} bucket reads, answers ${digests.size === 1 ? 'equal' : 'DIFFER'}): ${line}`,
    );
  }
}

/** MEMORY USAGE of the minute buckets (keys.ts `n:<t>:<c>`), and their keys and fields. */
async function minutesMemory(): Promise<void> {
  let [keys, fields, bytes] = [0, 0, 0];
  let cursor = '0';
  do {
    const [next, page] = await redis.scan(cursor, 'MATCH', `${prefix}:g1:{${API}}:n:*`, 'COUNT', 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of page) pipeline.hlen(key).memory('USAGE', key, 'SAMPLES', '0');
    const replies = (await pipeline.exec())!;
    page.forEach((_, n) => {
      keys++;
      fields += replies[2 * n]![1] as number;
      bytes += replies[2 * n + 1]![1] as number;
    });
  } while (cursor !== '0');
  console.log(
    `minute buckets: ${keys} keys, ${fields} fields, ${(bytes / 2 ** 20).toFixed(2)} MiB (MEMORY USAGE), ` +
      `${(bytes / events).toFixed(1)} B per seeded event`,
  );
}

/** used_memory and counter fields of the data set (run on a server holding nothing else). */
async function memory(): Promise<void> {
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
  let fields = 0;
  let hashes = 0;
  const listpacks = { listpack: 0, hashtable: 0 };
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:g1:*`, 'COUNT', 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.type(key).hlen(key).object('ENCODING', key);
    const replies = (await pipeline.exec())!;
    for (let n = 0; n < keys.length; n++) {
      if (replies[3 * n]![1] !== 'hash' || keys[n]!.endsWith(':ix') || keys[n]!.endsWith(':off')) continue;
      hashes++;
      fields += replies[3 * n + 1]![1] as number;
      listpacks[replies[3 * n + 2]![1] as 'listpack' | 'hashtable']++;
    }
  } while (cursor !== '0');
  const base = Number(await redis.get(`${prefix}:rb-base`));
  const bytes = (await used()) - base;
  console.log(
    `used_memory delta ${(bytes / 2 ** 20).toFixed(1)} MiB, ${hashes} counter hashes (${JSON.stringify(listpacks)}), ` +
      `${fields} fields: ${(bytes / fields).toFixed(1)} B per counter`,
  );
}

try {
  if (mode === 'seed') await seed();
  else if (mode === 'memory') await memory();
  else if (mode === 'minutes-memory') await minutesMemory();
  else if (mode === 'run') await run();
  else throw new Error('usage: read-bench.ts seed|memory|minutes-memory|run [options]');
} finally {
  redis.disconnect();
}
