/**
 * Micro-benchmark of the ingest worker's write path on the tail data set (#41: 5,000 small APIs, Zipf
 * s = 1.1, 30 days, in time order, as `npm run bench -- --tail` produces it), against a Redis of its own:
 * the events cut into batches; per batch the dictionary codes (assignCodes, not measured), then per API one
 * TupleCounter, `expand` and one applyApiBatches pipeline (applyApiBatch per API, staged chunks after it,
 * INGEST_MAX_WRITES_PER_CALL's default 1,000), as the worker commits a partition's batch.
 *
 *   npx tsx libs/store/bench/tail-apply.ts [--events 300000] [--batches 5] [--rounds 3] [--port 6396]
 *     [--no-aof] [--commands]
 *
 * Per round (the store flushed before it): worker CPU per event of counting + expand ("prepare") and of
 * applyApiBatches ("commit": arguments, ioredis, replies; process.cpuUsage, GC included), Redis CPU per
 * event of the applies (INFO cpu), and µs per applyApiBatch call (INFO commandstats' EVALSHA usec over
 * the applies' calls; the staged chunks' calls are counted apart). --commands lists the commands the
 * scripts ran per call. Starts its own redis-server (@va/infra/redis, state in .cache/bench/tail-apply-<port>)
 * and stops it at the end; never point it at 6379, 6390 or 6391 (it flushes the server).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startRedis, stopRedis } from '@va/infra/redis';
import { createTailGenerator } from '@va/testkit';
import { expand, TupleCounter } from '../src/aggregate';
import { applyApiBatches, type ApiApply } from '../src/apply';
import { DictionaryWriter, emptyMissing, type MissingValues } from '../src/dictionary';
import { identityValue, tagSetValue } from '../src/dictionary-values';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '300000' },
    batches: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    port: { type: 'string', default: '6396' },
    'no-aof': { type: 'boolean', default: false },
    commands: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(values.events);
const BATCHES = Number(values.batches);
const PORT = Number(values.port);
if ([6379, 6380, 6390, 6391, 6392].includes(PORT)) throw new Error(`port ${PORT} is not this bench's`);
const DAY_MS = 86_400_000;
const now = Date.now();
const retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
const minuteFrom = Math.floor((now - 3 * 3_600_000) / 60_000);
const space = { prefix: 'tailbench', generation: 1 };
const MAX_WRITES = 1000;

interface Tuple {
  apiId: string;
  hour: number;
  minute: number;
  key: string;
  identity: string | undefined;
  set: string;
  outcome: number;
}

const generator = createTailGenerator({
  seed: 1,
  events: EVENTS,
  startMs: now - 30 * DAY_MS,
  spanMs: 30 * DAY_MS,
});
const OUTCOME_CODES = new Map<string, number>();
const events: Tuple[] = Array.from({ length: EVENTS }, () => {
  const e = generator.next();
  let outcome = OUTCOME_CODES.get(e.outcome);
  if (outcome === undefined) OUTCOME_CODES.set(e.outcome, (outcome = OUTCOME_CODES.size));
  return {
    apiId: e.apiId,
    hour: Math.floor(e.time / 3_600_000),
    minute: Math.floor(e.time / 60_000),
    key: e.keyId,
    identity: e.identity ? identityValue(e.identity.id, e.identity.externalId) : undefined,
    set: tagSetValue(e.tags, e.region),
    outcome,
  };
});

const stateDir = path.resolve('.cache/bench', `tail-apply-${PORT}`);
const redisOptions = { stateDir, port: PORT, appendonly: !values['no-aof'] };
await startRedis(redisOptions);
const redis = new Redis(PORT, '127.0.0.1');

async function info(): Promise<{ cpu: number; stats: Map<string, { calls: number; usec: number }> }> {
  const text = await redis.info('all');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const [, name, calls, usec] of text.matchAll(/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/gm))
    stats.set(name!, { calls: Number(calls), usec: Number(usec) });
  return { cpu: (field('used_cpu_user') + field('used_cpu_sys')) * 1e6, stats };
}

interface Totals {
  prepare: number;
  commit: number;
  redisCpu: number;
  calls: number;
  evalsha: { calls: number; usec: number };
  commands: Map<string, number>;
  buckets: number;
}

const cpuMs = (from: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1000;
};

async function round(): Promise<Totals> {
  await redis.flushall();
  const out: Totals = {
    prepare: 0,
    commit: 0,
    redisCpu: 0,
    calls: 0,
    evalsha: { calls: 0, usec: 0 },
    commands: new Map(),
    buckets: 0,
  };
  const dicts = new DictionaryWriter(redis, space);
  const offsets = new Map<string, number>();
  const size = Math.ceil(EVENTS / BATCHES);
  for (let from = 0, batch = 0; from < EVENTS; from += size, batch++) {
    const slice = events.slice(from, from + size);
    const missing = new Map<string, MissingValues>();
    for (const e of slice) {
      const codes = dicts.codesOf(e.apiId);
      let m = missing.get(e.apiId);
      const miss = (d: 'k' | 'i' | 's', v: string) => {
        if (codes[d].has(v)) return;
        if (!m) missing.set(e.apiId, (m = emptyMissing()));
        m[d].add(v);
      };
      miss('k', e.key);
      if (e.identity !== undefined) miss('i', e.identity);
      miss('s', e.set);
    }
    await dicts.assign(missing);

    const before = await info();
    let start = process.cpuUsage();
    const counters = new Map<string, TupleCounter>();
    for (const e of slice) {
      let counter = counters.get(e.apiId);
      if (!counter) counters.set(e.apiId, (counter = new TupleCounter()));
      const codes = dicts.codesOf(e.apiId);
      const k = codes.k.get(e.key)!;
      const i = e.identity === undefined ? -1 : codes.i.get(e.identity)!;
      const s = codes.s.get(e.set)!;
      counter.add(e.hour, k, i, s, e.outcome);
      if (e.minute >= minuteFrom) counter.addMinute(e.minute, k, i, s, e.outcome);
    }
    const applies: ApiApply[] = [];
    for (const [apiId, counter] of counters) {
      const increments = expand(counter, { now, retention, cmp: null });
      out.buckets += increments.buckets.length;
      const expectedOff = offsets.get(apiId) ?? null;
      applies.push({
        apiId,
        increments,
        cas: { offsetField: 'tail/0', expectedOff, newOff: batch, expectedCmp: null },
      });
      offsets.set(apiId, batch);
    }
    out.prepare += cpuMs(start);
    start = process.cpuUsage();
    const results = await applyApiBatches(redis, space, applies, { maxWritesPerCall: MAX_WRITES });
    out.commit += cpuMs(start);
    const failed = results.find((r) => r.status !== 'ok');
    if (failed) throw new Error(`apply failed: ${JSON.stringify(failed)}`);
    const after = await info();
    out.calls += applies.length;
    out.redisCpu += after.cpu - before.cpu;
    for (const [name, { calls, usec }] of after.stats) {
      const was = before.stats.get(name) ?? { calls: 0, usec: 0 };
      if (name === 'evalsha') {
        out.evalsha.calls += calls - was.calls;
        out.evalsha.usec += usec - was.usec;
      } else if (name !== 'info') out.commands.set(name, (out.commands.get(name) ?? 0) + calls - was.calls);
    }
  }
  return out;
}

try {
  await round(); // warm-up
  for (let n = 1; n <= Number(values.rounds); n++) {
    const r = await round();
    const perEvent = (ms: number) => ((ms * 1000) / EVENTS).toFixed(1);
    const chunkCalls = r.evalsha.calls - r.calls;
    console.log(
      `round ${n}: worker ${perEvent(r.prepare + r.commit)} µs/event (prepare ${perEvent(r.prepare)}, commit ` +
        `${perEvent(r.commit)}), Redis ${(r.redisCpu / EVENTS).toFixed(1)} µs/event, ` +
        `${(r.evalsha.usec / r.evalsha.calls).toFixed(1)} µs/call (${r.calls} applyApiBatch + ${chunkCalls} chunk ` +
        `calls, ${r.buckets} buckets; ${EVENTS} events in ${BATCHES} batches)`,
    );
    if (values.commands) {
      const listed = [...r.commands]
        .filter(([, calls]) => calls > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([name, calls]) => `${name} ${(calls / r.calls).toFixed(2)}`);
      console.log(`  per applyApiBatch call: ${listed.join(', ')}`);
    }
  }
} finally {
  redis.disconnect();
  await stopRedis(redisOptions);
}
