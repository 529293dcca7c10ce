/**
 * Micro-benchmark of sealing and compaction on the tail data set (#41: many tiny APIs, an API-hour holding
 * one to three rows per cube). Fills a Redis of its own through the ingest worker's store functions
 * (DictionaryWriter, TupleCounter, expand, applyApiBatches: batches in time order), then runs the
 * compactor's job on every API (sealApi of the hours, compactApi, sealApi of the rest, as
 * services/compactor/src/compactor.ts `compact` does; jobs again until nothing is left), `--concurrency`
 * APIs at once. Redis's own time per script comes from its slow log (slowlog-log-slower-than 0, drained
 * in MULTI with SLOWLOG RESET, so no entry is lost); the commands each script runs inside, from MONITOR
 * on a second, small fill (`--census-events`), so that MONITOR's cost is not in the timings.
 *
 *   npx tsx libs/store/bench/tail-seal.ts [--events 40000] [--port 6395] [--concurrency 4] [--census-events 3000]
 *
 * Starts redis-server on --port (state in .cache/bench-tail-seal-<port>, no AOF), flushes it (it is its
 * own), stops it at the end unless it was already running. Never use 6379, 6390, 6391.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startRedis, stopRedis } from '@va/infra/redis';
import { OUTCOMES } from '@va/contracts';
import { closedBoundAt, DAY_MS, hourOf, minuteOf } from '@va/core';
import { createTailGenerator } from '@va/testkit';
import { expand, TupleCounter } from '../src/aggregate';
import { applyApiBatches, type ApiApply } from '../src/apply';
import { scriptNamesBySha } from '../src/commands';
import { compactApi } from '../src/compaction';
import type { RedisClient } from '../src/connection';
import { DictionaryWriter, emptyMissing } from '../src/dictionary';
import { identityValue, tagSetValue } from '../src/dictionary-values';
import { apiKeys, type KeySpace } from '../src/keys';
import { readDirty, sealApi, sealableBuckets } from '../src/seal';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '40000' },
    port: { type: 'string', default: '6395' },
    concurrency: { type: 'string', default: '4' },
    batches: { type: 'string', default: '4' },
    'census-events': { type: 'string', default: '3000' },
    /** off: no slow log during the timed run (its entries for every inner command cost Redis time inside the
     * script calls); the scripts' time then comes from INFO commandstats only, not split by script. */
    slowlog: { type: 'string', default: 'on' },
  },
});
const PORT = Number(values.port);
if ([6379, 6390, 6391].includes(PORT)) throw new Error(`port ${PORT} is not this bench's`);
const retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
const GRACE_MS = 5 * 60_000;
const shas = scriptNamesBySha();

/** Fills `space` with `events` tail events (30 days up to now) the way the ingest worker writes them. */
async function fill(redis: RedisClient, space: KeySpace, events: number, batches: number, now: number) {
  const generator = createTailGenerator({ seed: 1, events, startMs: now - 30 * DAY_MS, spanMs: 30 * DAY_MS });
  const minutesFrom = now - 3 * 3_600_000;
  const dicts = new DictionaryWriter(redis, space);
  const offsets = new Map<string, number>();
  const size = Math.ceil(events / batches);
  for (let from = 0; from < events; from += size) {
    const batch = Array.from({ length: Math.min(size, events - from) }, () => generator.next());
    const missing = new Map<string, ReturnType<typeof emptyMissing>>();
    for (const e of batch) {
      let m = missing.get(e.apiId);
      if (!m) missing.set(e.apiId, (m = emptyMissing()));
      m.k.add(e.keyId);
      m.s.add(tagSetValue(e.tags, e.region));
      if (e.identity) m.i.add(identityValue(e.identity.id, e.identity.externalId));
    }
    await dicts.assign(missing);
    const counters = new Map<string, TupleCounter>();
    for (const e of batch) {
      const codes = dicts.codesOf(e.apiId);
      let counter = counters.get(e.apiId);
      if (!counter) counters.set(e.apiId, (counter = new TupleCounter()));
      const k = codes.k.get(e.keyId)!;
      const i = e.identity ? codes.i.get(identityValue(e.identity.id, e.identity.externalId))! : -1;
      const s = codes.s.get(tagSetValue(e.tags, e.region))!;
      const o = OUTCOMES.indexOf(e.outcome);
      counter.add(hourOf(e.time), k, i, s, o);
      if (e.time >= minutesFrom) counter.addMinute(minuteOf(e.time), k, i, s, o);
    }
    const applies: ApiApply[] = [...counters].map(([apiId, counter]) => {
      const off = offsets.get(apiId) ?? null;
      offsets.set(apiId, from + size);
      return {
        apiId,
        increments: expand(counter, { now, retention, cmp: null }),
        cas: { offsetField: 'tail/0', expectedOff: off, newOff: from + size, expectedCmp: null },
      };
    });
    const results = await applyApiBatches(redis, space, applies);
    const failed = results.filter((r) => r.status !== 'ok');
    if (failed.length > 0) throw new Error(`apply: ${JSON.stringify(failed[0])}`);
  }
  return [...offsets.keys()];
}

/** The compactor's job on one API (compactor.ts `compact`, sealing on), until nothing is left. */
async function compactJobs(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  closedBound: number,
  now: number,
) {
  let sealed = 0;
  let hours = 0;
  for (let job = 0; job < 100; job++) {
    const first = await sealApi(redis, space, apiId, closedBound, { now, retention, only: 'h' });
    const firstLeft = first.firstLeft;
    const result = await compactApi(redis, space, apiId, {
      closedBound: firstLeft === null ? closedBound : Math.min(closedBound, firstLeft - 1),
      retention,
      now,
      maxHours: 5_000,
    });
    const rest = await sealApi(redis, space, apiId, closedBound, { now, retention });
    sealed += first.sealed + rest.sealed;
    hours += result.hoursCompacted;
    const left = sealableBuckets(await readDirty(redis, space, apiId), closedBound, Infinity);
    if (result.done && firstLeft === null && left.length === 0) return { sealed, hours, jobs: job + 1 };
  }
  throw new Error(`${apiId}: not done after 100 jobs`);
}

async function hoursHeld(redis: RedisClient, space: KeySpace, apis: readonly string[]): Promise<number> {
  const pipeline = redis.pipeline();
  for (const apiId of apis) pipeline.zcard(apiKeys(space, apiId).bucketIndex('h'));
  return ((await pipeline.exec()) ?? []).reduce((sum, [, n]) => sum + Number(n), 0);
}

async function runAll(
  redis: RedisClient,
  space: KeySpace,
  apis: readonly string[],
  now: number,
  concurrency: number,
) {
  const closedBound = closedBoundAt(now, GRACE_MS);
  const totals = { sealed: 0, hours: 0, jobs: 0 };
  let next = 0;
  const worker = async () => {
    while (next < apis.length) {
      const r = await compactJobs(redis, space, apis[next++]!, closedBound, now);
      totals.sealed += r.sealed;
      totals.hours += r.hours;
      totals.jobs += r.jobs;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return totals;
}

interface Stat {
  calls: number;
  us: number;
}
/**
 * Drains the slow log (atomically with its reset) into per-command / per-script totals. Redis 7 logs the
 * commands a script runs too (client "?:0"): they are kept apart ("lua GET"), their time is in the script's.
 */
async function drainSlowlog(admin: Redis, into: Map<string, Stat>): Promise<void> {
  const [[, entries]] = (await admin
    .multi()
    .call('SLOWLOG', 'GET', '-1')
    .call('SLOWLOG', 'RESET')
    .exec()) as [[unknown, [number, number, number, string[], string][]]];
  for (const [, , us, args, client] of entries) {
    const cmd = args[0]!.toLowerCase();
    const name =
      client === '?:0'
        ? `lua ${cmd}`
        : cmd === 'evalsha'
          ? (shas.get(args[1]!) ?? `script ${args[1]!.slice(0, 8)}`)
          : cmd;
    const s = into.get(name) ?? { calls: 0, us: 0 };
    s.calls++;
    s.us += us;
    into.set(name, s);
  }
}

async function timed(
  admin: Redis,
  redis: RedisClient,
  space: KeySpace,
  apis: readonly string[],
  now: number,
) {
  const stats = new Map<string, Stat>();
  await admin.config('SET', 'slowlog-max-len', '200000');
  const slowlog = values.slowlog !== 'off';
  await admin.config('SET', 'slowlog-log-slower-than', slowlog ? '0' : '-1');
  await admin.call('SLOWLOG', 'RESET');
  await admin.config('RESETSTAT');
  let draining = slowlog;
  const drainer = (async () => {
    while (draining) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await drainSlowlog(admin, stats);
    }
  })();
  const cpu0 = await redisCpu(admin);
  const start = performance.now();
  const totals = await runAll(redis, space, apis, now, Number(values.concurrency));
  const wall = performance.now() - start;
  const cpu = (await redisCpu(admin)) - cpu0;
  draining = false;
  await drainer;
  await admin.config('SET', 'slowlog-log-slower-than', '10000');
  await drainSlowlog(admin, stats);
  return { totals, wall, cpu, stats, commandstats: await commandStats(admin) };
}

async function redisCpu(admin: Redis): Promise<number> {
  const info = await admin.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_sys') + field('used_cpu_user');
}

async function commandStats(admin: Redis): Promise<Map<string, Stat>> {
  const out = new Map<string, Stat>();
  for (const m of (await admin.info('commandstats')).matchAll(/cmdstat_(\S+):calls=(\d+),usec=(\d+)/g))
    out.set(m[1]!, { calls: Number(m[2]), us: Number(m[3]) });
  return out;
}

/** MONITOR over a small fill's seal and compaction: the commands each script runs inside, per call. */
async function census(redis: RedisClient, admin: Redis, space: KeySpace, now: number) {
  const apis = await fill(redis, space, Number(values['census-events']), 2, now);
  const client = admin.duplicate();
  const monitor = await client.monitor();
  const lines: { lua: boolean; args: string[] }[] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) =>
    lines.push({ lua: source === 'lua', args }),
  );
  await runAll(redis, space, apis, now, 1); // one API at a time: a script's inner commands stay together
  await new Promise((resolve) => setTimeout(resolve, 500));
  monitor.disconnect();
  client.disconnect();
  // Redis 7.0 feeds MONITOR a script call before it runs, then the commands it runs inside ("lua").
  const perScript = new Map<string, { calls: number; commands: Map<string, number> }>();
  let current: Map<string, number> | undefined;
  for (const { lua, args } of lines) {
    const command = args[0]!.toLowerCase();
    if (lua) {
      if (current) current.set(command, (current.get(command) ?? 0) + 1);
      continue;
    }
    current = undefined;
    if (command !== 'evalsha') continue;
    const name = shas.get(args[1]!) ?? 'other script';
    const s = perScript.get(name) ?? { calls: 0, commands: new Map<string, number>() };
    s.calls++;
    perScript.set(name, s);
    current = s.commands;
  }
  return perScript;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

async function main() {
  const stateDir = resolve(`.cache/bench-tail-seal-${PORT}`);
  const server = await startRedis({ port: PORT, stateDir, appendonly: false });
  const redis = new Redis(server.url) as RedisClient;
  const admin = new Redis(server.url);
  try {
    await admin.flushall();
    const now = Date.now();
    const space = { prefix: 'bench', generation: 1 };
    const t0 = performance.now();
    const apis = await fill(redis, space, Number(values.events), Number(values.batches), now);
    const fillMs = performance.now() - t0;
    const apiHours = await hoursHeld(redis, space, apis);
    const run = await timed(admin, redis, space, apis, now);
    const { totals } = run;
    console.log(
      `${fmt(Number(values.events))} events, ${fmt(apis.length)} APIs, ${fmt(apiHours)} API-hours ` +
        `(filled in ${fmt(fillMs / 1000, 1)} s); load ${(await import('node:os'))
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
    console.log(
      `sealed and compacted in ${fmt(run.wall / 1000, 2)} s: ${fmt(totals.sealed)} buckets sealed, ` +
        `${fmt(totals.hours)} hours compacted, ${fmt(totals.jobs)} jobs; Redis CPU ${fmt(run.cpu, 2)} s ` +
        `(${fmt((run.cpu * 1e6) / apiHours)} µs per API-hour)`,
    );
    let total = 0;
    const rows = [...run.stats].sort((a, b) => b[1].us - a[1].us);
    console.log('Redis time (slow log)   calls     total ms   µs/call   µs/API-hour   calls/API-hour');
    for (const [name, s] of rows) {
      if (!name.startsWith('lua ')) total += s.us;
      console.log(
        `  ${name.padEnd(20)} ${fmt(s.calls).padStart(8)} ${fmt(s.us / 1000, 1).padStart(12)} ` +
          `${fmt(s.us / s.calls, 1).padStart(9)} ${fmt(s.us / apiHours, 1).padStart(13)} ${fmt(s.calls / apiHours, 2).padStart(16)}`,
      );
    }
    console.log(
      `  all                  ${fmt(total / 1000, 1).padStart(21)} ms = ${fmt(total / apiHours, 1)} µs per API-hour (top-level calls; lua rows are inside them)`,
    );
    const evalsha = run.commandstats.get('evalsha') ?? { calls: 0, us: 0 };
    console.log(
      `EVALSHA (commandstats, slow log ${values.slowlog}): ${fmt(evalsha.calls)} calls, ` +
        `${fmt(evalsha.us / evalsha.calls, 1)} µs per call, ${fmt(evalsha.us / apiHours, 1)} µs per API-hour`,
    );
    const inner = [...run.commandstats].filter(
      ([c]) => !['evalsha', 'slowlog', 'config', 'info', 'multi', 'exec'].includes(c),
    );
    console.log(
      'commandstats (inner and plain): ' +
        inner
          .sort((a, b) => b[1].us - a[1].us)
          .slice(0, 16)
          .map(([c, s]) => `${c} ${fmt(s.calls / apiHours, 2)}/API-hour ${fmt(s.us / s.calls, 2)} µs`)
          .join(', '),
    );
    const perScript = await census(redis, admin, { prefix: 'census', generation: 1 }, now);
    for (const [name, s] of perScript) {
      const commands = [...s.commands].sort((a, b) => b[1] - a[1]);
      const sum = commands.reduce((n, [, c]) => n + c, 0);
      console.log(
        `census ${name}: ${fmt(s.calls)} calls, ${fmt(sum / s.calls, 1)} commands per call: ` +
          commands.map(([c, n]) => `${c} ${fmt(n / s.calls, 2)}`).join(', '),
      );
    }
  } finally {
    redis.disconnect();
    admin.disconnect();
    if (!server.reused) await stopRedis({ port: PORT, stateDir });
  }
}

await main();
