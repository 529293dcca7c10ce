/**
 * What the tail data set (#41) costs in the tuple form of docs/store-v2.md "Small tenants (#41): the design":
 * the figures behind its byte budget.
 *
 *   npx tsx libs/store/bench/tail-budget.ts [--events 3000000] [--key-bytes 100] [--batch 60000] [--redis-port 6398]
 *
 * Counts the events per API-day and per API-month into tuple values (section/tuple-value.ts, the real codec)
 * and the names each API's dictionaries hold; then the design's CPU: the events cut into batches of `--batch`
 * (in the topic's order), each batch's tuples encoded as one part per API-month (the worker's share), and every
 * month's parts folded into its value (the seal's share), in µs of CPU per event. Without `--redis-port` it estimates a key's cost as
 * `--key-bytes` (the tail run measured 105–125 B for a section key: MEMORY USAGE minus the section's length).
 * With it, it starts a redis-server of its own on that port (infra/redis.conf, no AOF; never 6379, 6390 or
 * 6391: it is flushed), writes one value per API-month (with its expiry, as the design keeps it) and one
 * name → code hash per API, and reports `used_memory` per event.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { OUTCOMES } from '@va/contracts';
import { startRedis, stopRedis } from '@va/infra/redis';
import { createTailGenerator } from '@va/testkit';
import { identityValue, tagSetValue } from '../src/dictionary-values';
import {
  decodeTupleValue,
  encodeTupleValue,
  mergeTupleValues,
  tupleValueOf,
} from '../src/section/tuple-value';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '3000000' },
    'key-bytes': { type: 'string', default: '100' },
    'redis-port': { type: 'string' },
    batch: { type: 'string', default: '60000' },
  },
});
const EVENTS = Number(values.events);
const KEY_BYTES = Number(values['key-bytes']);
const BATCH = Number(values.batch);
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const SHARD_NAMES = 400;
/** FNV-1a of a string's UTF-16 units: a stable shard for a dictionary name. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let c = 0; c < text.length; c++) hash = Math.imul(hash ^ text.charCodeAt(c), 0x01000193) >>> 0;
  return hash;
};
const now = Date.now();
const generator = createTailGenerator({
  seed: 1,
  events: EVENTS,
  startMs: now - 30 * DAY_MS,
  spanMs: 30 * DAY_MS,
});

/** [hour, key, identity, set, outcome, count] rows of one API-day or API-month, summed by the codec. */
type Row = [number, number, number, number, number, number];
interface ApiState {
  names: [Map<string, number>, Map<string, number>, Map<string, number>];
  days: Map<number, Row[]>;
  months: Map<string, Row[]>;
}
const apis = new Map<string, ApiState>();
/** Every event's API-month and row, in the topic's order: the fold below cuts it into batches. */
const inOrder: { at: string; first: number; row: Row }[] = [];
const monthFirstHour = (month: string) => Date.parse(`${month}-01T00:00:00Z`) / HOUR_MS;
const codeOf = (names: Map<string, number>, value: string): number => {
  let code = names.get(value);
  if (code === undefined) names.set(value, (code = names.size));
  return code;
};
const push = <K>(map: Map<K, Row[]>, key: K, row: Row) => {
  const rows = map.get(key);
  if (rows) rows.push(row);
  else map.set(key, [row]);
};

for (let n = 0; n < EVENTS; n++) {
  const e = generator.next();
  let api = apis.get(e.apiId);
  if (!api)
    apis.set(
      e.apiId,
      (api = { names: [new Map(), new Map(), new Map()], days: new Map(), months: new Map() }),
    );
  const [keys, identities, sets] = api.names;
  const k = codeOf(keys, e.keyId);
  const i = e.identity ? codeOf(identities, identityValue(e.identity.id, e.identity.externalId)) : -1;
  const s = codeOf(sets, tagSetValue(e.tags, e.region));
  const row: Row = [Math.floor(e.time / HOUR_MS), k, i, s, OUTCOMES.indexOf(e.outcome), 1];
  const month = new Date(e.time).toISOString().slice(0, 7);
  push(api.days, Math.floor(e.time / DAY_MS), row);
  push(api.months, month, row);
  inOrder.push({ at: `${e.apiId}/${month}`, first: monthFirstHour(month), row });
}

const valueOf = (rows: Row[], firstHour: number) =>
  encodeTupleValue(
    tupleValueOf(
      { forEach: (fn) => rows.forEach(([h, k, i, s, o, c]) => fn(h, k, i, s, o, c)) },
      firstHour,
      1,
    ),
  );
let dayBytes = 0;
let apiDays = 0;
const monthValues: { apiId: string; month: string; value: Buffer }[] = [];
let names = 0;
let nameBytes = 0;
for (const [apiId, api] of apis) {
  for (const [day, rows] of api.days) {
    const first = day * 24;
    // An API-day's value as the codec would hold it: its hours relative to the day (a day is in its month).
    dayBytes += valueOf(
      rows.map(([h, ...rest]) => [h - first, ...rest] as Row),
      0,
    ).length;
    apiDays++;
  }
  for (const [month, rows] of api.months)
    monthValues.push({ apiId, month, value: valueOf(rows, monthFirstHour(month)) });
  for (const dictionary of api.names) {
    for (const [name, code] of dictionary) {
      names++;
      nameBytes += name.length + 2 + code.toString(36).length + 2; // a listpack entry pair and its headers
    }
  }
}
const monthBytes = monthValues.reduce((sum, { value }) => sum + value.length, 0);
const perEvent = (bytes: number) => `${(bytes / EVENTS).toFixed(2)} B/event`;
console.log(`events ${EVENTS}, APIs ${apis.size}, API-days ${apiDays}, API-months ${monthValues.length}`);
console.log(`tuple values per API-day: ${perEvent(dayBytes)} + keys ${perEvent(apiDays * KEY_BYTES)}`);
console.log(
  `tuple values per API-month: ${perEvent(monthBytes)} + keys ${perEvent(monthValues.length * KEY_BYTES)}`,
);
const largest = monthValues.map(({ value }) => value.length).sort((a, b) => a - b);
console.log(`API-month value bytes: p50 ${largest[largest.length >> 1]}, max ${largest[largest.length - 1]}`);
console.log(
  `dictionaries as one name -> code hash per API: ${names} names, ${perEvent(nameBytes)} + keys ${perEvent(apis.size * KEY_BYTES)}`,
);

// The design's CPU on the worker and the sealer: each batch's events as one encoded part per API-month
// (what applyApiBatch would RPUSH), then each month's parts folded into its value (what a seal does).
const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};
const parts = new Map<string, { first: number; parts: Buffer[] }>();
let start = process.cpuUsage();
for (let from = 0; from < inOrder.length; from += BATCH) {
  const batch = new Map<string, { first: number; rows: Row[] }>();
  for (const { at, first, row } of inOrder.slice(from, from + BATCH)) {
    const entry = batch.get(at);
    if (entry) entry.rows.push(row);
    else batch.set(at, { first, rows: [row] });
  }
  for (const [at, { first, rows }] of batch) {
    const part = valueOf(rows, first);
    const entry = parts.get(at);
    if (entry) entry.parts.push(part);
    else parts.set(at, { first, parts: [part] });
  }
}
const encodeMs = cpuMs(start);
start = process.cpuUsage();
let folded = 0;
for (const { parts: list } of parts.values())
  folded += encodeTupleValue(mergeTupleValues(list.map(decodeTupleValue), 2)).length;
const foldMs = cpuMs(start);
const partCount = [...parts.values()].reduce((sum, { parts: list }) => sum + list.length, 0);
console.log(
  `fold in batches of ${BATCH}: ${partCount} parts; encoding them ${((encodeMs * 1000) / EVENTS).toFixed(2)} µs/event, folding them into ${parts.size} values (${folded} B) ${((foldMs * 1000) / EVENTS).toFixed(2)} µs/event`,
);

if (values['redis-port'] !== undefined) {
  const port = Number(values['redis-port']);
  if ([6379, 6390, 6391].includes(port)) throw new Error(`tail-budget: port ${port} is not this bench's`);
  const redisOptions = {
    stateDir: path.resolve('.cache/bench', `tail-budget-${port}`),
    port,
    appendonly: false,
  };
  await startRedis(redisOptions);
  const redis = new Redis(port, '127.0.0.1');
  try {
    await redis.flushall();
    const used = async () => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1]);
    const base = await used();
    const expireAt = now + 1830 * DAY_MS;
    const prefix = 'vabench-tail:g1';
    for (let from = 0; from < monthValues.length; from += 1_000) {
      const pipeline = redis.pipeline();
      for (const { apiId, month, value } of monthValues.slice(from, from + 1_000))
        pipeline.set(`${prefix}:{${apiId}}:T:${month}`, value, 'PXAT', expireAt);
      await pipeline.exec();
    }
    const afterValues = await used();
    // Sharded by a hash of the name so that every hash stays a listpack (hash-max-listpack-entries 512 in
    // infra/redis.conf): one hash per API while it holds at most SHARD_NAMES names.
    for (const [apiId, api] of apis) {
      const all: [string, string][] = [];
      api.names.forEach((dictionary, d) => {
        const letter = 'kis'[d]!;
        for (const [name, code] of dictionary) all.push([`${letter}:${name}`, code.toString(36)]);
        all.push([`#${letter}`, String(dictionary.size)]);
      });
      const shards = Math.max(1, Math.ceil(all.length / SHARD_NAMES));
      const byShard = Array.from({ length: shards }, () => [] as string[]);
      for (const [field, value] of all) byShard[shards === 1 ? 0 : fnv1a(field) % shards]!.push(field, value);
      const pipeline = redis.pipeline();
      byShard.forEach((fields, n) => {
        const key = `${prefix}:{${apiId}}:dict${shards === 1 ? '' : `:${n}`}`;
        pipeline.hset(key, ...fields);
        pipeline.pexpireat(key, expireAt);
      });
      await pipeline.exec();
    }
    const afterDictionaries = await used();
    console.log(
      `Redis used_memory: tuple values ${perEvent(afterValues - base)}, dictionaries ${perEvent(afterDictionaries - afterValues)}, together ${perEvent(afterDictionaries - base)}`,
    );
  } finally {
    redis.disconnect();
    await stopRedis(redisOptions);
  }
}
