/**
 * Micro-benchmark of the ingest worker's per-bucket steps on the tail data set (#41: 5,000 APIs, Zipf s = 1.1,
 * 30 days, in time order, as `npm run bench -- --tail` produces it): the events cut into batches, per batch
 * and API one TupleCounter (hour and minute tuples), `expand`, and the applyApiBatch arguments
 * (applyApiBatchArgs). No Redis, no Kafka: the worker CPU that grows with API-hours, not with round trips.
 *
 *   npx tsx libs/store/bench/tail-expand.ts [--events 300000] [--batches 5] [--rounds 3]
 *
 * Prints CPU ms per step and round (process.cpuUsage, GC included); compare rounds of one machine and hour.
 * Codes are stand-ins (keys, identities and tag sets numbered per API as first seen), as the worker's are.
 */
import { parseArgs } from 'node:util';
import { createTailGenerator } from '@va/testkit';
import { expand, TupleCounter } from '../src/aggregate';
import { applyApiBatchArgs } from '../src/scripts/apply-scripts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '300000' },
    batches: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
  },
});
const EVENTS = Number(values.events);
const BATCHES = Number(values.batches);
const DAY_MS = 86_400_000;
const now = Date.now();
const retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
/** The worker counts minutes of the last hours too (minute buckets). */
const minuteFrom = Math.floor((now - 3 * 3_600_000) / 60_000);

const generator = createTailGenerator({
  seed: 1,
  events: EVENTS,
  startMs: now - 30 * DAY_MS,
  spanMs: 30 * DAY_MS,
});
const codes = new Map<string, Map<string, number>>();
function codeOf(apiId: string, value: string): number {
  let api = codes.get(apiId);
  if (!api) codes.set(apiId, (api = new Map()));
  let code = api.get(value);
  if (code === undefined) api.set(value, (code = api.size));
  return code;
}
const tuples = Array.from({ length: EVENTS }, () => {
  const e = generator.next();
  return {
    apiId: e.apiId,
    hour: Math.floor(e.time / 3_600_000),
    minute: Math.floor(e.time / 60_000),
    k: codeOf(e.apiId, `k/${e.keyId}`),
    i: e.identity ? codeOf(e.apiId, `i/${e.identity.id}`) : -1,
    s: codeOf(e.apiId, `s/${(e.tags ?? []).join(',')}/${e.region ?? ''}`),
  };
});

function round(): { count: number; expand: number; args: number; buckets: number } {
  const out = { count: 0, expand: 0, args: 0, buckets: 0 };
  const size = Math.ceil(EVENTS / BATCHES);
  for (let from = 0; from < EVENTS; from += size) {
    let start = process.cpuUsage();
    const lap = () => {
      const { user, system } = process.cpuUsage(start);
      start = process.cpuUsage();
      return (user + system) / 1000;
    };
    const counters = new Map<string, TupleCounter>();
    for (const t of tuples.slice(from, from + size)) {
      let counter = counters.get(t.apiId);
      if (!counter) counters.set(t.apiId, (counter = new TupleCounter()));
      counter.add(t.hour, t.k, t.i, t.s, 0);
      if (t.minute >= minuteFrom) counter.addMinute(t.minute, t.k, t.i, t.s, 0);
    }
    out.count += lap();
    const increments = [...counters].map(([apiId, c]) => ({
      apiId,
      inc: expand(c, { now, retention, cmp: null }),
    }));
    out.expand += lap();
    for (const { apiId, inc } of increments) {
      out.buckets += inc.buckets.length;
      const cas = { offsetField: 'tail/0', expectedOff: null, newOff: 1, expectedCmp: null };
      applyApiBatchArgs({ space: { prefix: 'bench', generation: 1 }, apiId, increments: inc, cas });
    }
    out.args += lap();
  }
  return out;
}

round(); // warm-up
for (let n = 1; n <= Number(values.rounds); n++) {
  const r = round();
  console.log(
    `round ${n}: count ${r.count.toFixed(0)} ms, expand ${r.expand.toFixed(0)} ms, args ${r.args.toFixed(0)} ms ` +
      `(${EVENTS} events in ${BATCHES} batches, ${r.buckets} buckets)`,
  );
}
