/**
 * What the tail data set (#41) would cost in a per-API-day tuple form, computed from its events without
 * Redis: the figures behind docs/store-v2.md "Small tenants (#41): the design".
 *
 *   npx tsx libs/store/bench/tail-budget.ts [--events 3000000] [--key-bytes 100]
 *
 * Per API-day, its distinct (hour of the day, key, identity, tag set, outcome) tuples with their counts,
 * encoded as the design says (sorted; per tuple one byte of hour delta and outcome, then key, identity + 1,
 * tag set and count as LEB128 varints), plus the names its dictionaries must hold. `--key-bytes` is what a
 * Redis key costs besides its value (name, dict entry, object header, expiry entry): the tail run measured
 * 105–125 B for a section key (MEMORY USAGE minus the section's length).
 */
import { parseArgs } from 'node:util';
import { OUTCOMES } from '@va/contracts';
import { createTailGenerator } from '@va/testkit';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '3000000' },
    'key-bytes': { type: 'string', default: '100' },
  },
});
const EVENTS = Number(values.events);
const KEY_BYTES = Number(values['key-bytes']);
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const now = Date.now();
const generator = createTailGenerator({
  seed: 1,
  events: EVENTS,
  startMs: now - 30 * DAY_MS,
  spanMs: 30 * DAY_MS,
});

interface ApiState {
  names: Map<string, number>[];
  days: Map<number, Map<string, number>>;
}
const apis = new Map<string, ApiState>();

function codeOf(names: Map<string, number>, value: string): number {
  let code = names.get(value);
  if (code === undefined) names.set(value, (code = names.size));
  return code;
}

for (let n = 0; n < EVENTS; n++) {
  const e = generator.next();
  let api = apis.get(e.apiId);
  if (!api) apis.set(e.apiId, (api = { names: [new Map(), new Map(), new Map()], days: new Map() }));
  const [keys, identities, sets] = api.names as [
    Map<string, number>,
    Map<string, number>,
    Map<string, number>,
  ];
  const k = codeOf(keys, e.keyId);
  const i = e.identity ? codeOf(identities, `${e.identity.id}\n${e.identity.externalId}`) : -1;
  const s = codeOf(sets, `${[...(e.tags ?? [])].sort().join(',')}\u001f${e.region ?? ''}`);
  const day = Math.floor(e.time / DAY_MS);
  const hour = Math.floor((e.time - day * DAY_MS) / HOUR_MS);
  let tuples = api.days.get(day);
  if (!tuples) api.days.set(day, (tuples = new Map()));
  const o = OUTCOMES.indexOf(e.outcome);
  const id = `${hour}.${k}.${i}.${s}.${o}`;
  tuples.set(id, (tuples.get(id) ?? 0) + 1);
}

const varint = (x: number): number => (x < 128 ? 1 : x < 16_384 ? 2 : x < 2_097_152 ? 3 : 4);
let apiDays = 0;
let apiHours = 0;
let tuplesTotal = 0;
let tupleBytes = 0;
let dictionaryBytes = 0;
let dictionaryEntries = 0;
const dayValueSizes: number[] = [];
for (const api of apis.values()) {
  for (const names of api.names) {
    for (const [name, code] of names) {
      dictionaryBytes += name.length + varint(code) + 2; // listpack entry: value, code, their headers
      dictionaryEntries++;
    }
  }
  for (const tuples of api.days.values()) {
    apiDays++;
    const parsed = [...tuples].map(([id, count]) => [...id.split('.').map(Number), count] as number[]);
    parsed.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]! || a[3]! - b[3]! || a[4]! - b[4]!);
    apiHours += new Set(parsed.map((t) => t[0])).size;
    let bytes = 0;
    for (const [, k, i, s, , count] of parsed)
      bytes += 1 + varint(k!) + varint(i! + 1) + varint(s!) + varint(count!);
    tuplesTotal += parsed.length;
    tupleBytes += bytes;
    dayValueSizes.push(bytes);
  }
}
// The same tuples per API-month (hour of the month and outcome in one varint: 2 bytes), one value per API-month.
const monthBytes = new Map<string, number>();
for (const [apiId, api] of apis) {
  for (const [day, tuples] of api.days) {
    const month = new Date(day * DAY_MS).toISOString().slice(0, 7);
    let bytes = 0;
    for (const [id, count] of tuples) {
      const [, k, i, s] = id.split('.').map(Number) as [number, number, number, number];
      bytes += 2 + varint(k) + varint(i + 1) + varint(s) + varint(count);
    }
    monthBytes.set(`${apiId}/${month}`, (monthBytes.get(`${apiId}/${month}`) ?? 0) + bytes);
  }
}
const monthTotal = [...monthBytes.values()].reduce((a, b) => a + b, 0);
dayValueSizes.sort((a, b) => a - b);
const perEvent = (bytes: number) => (bytes / EVENTS).toFixed(2);
const q = (p: number) =>
  dayValueSizes[Math.min(dayValueSizes.length - 1, Math.floor(p * dayValueSizes.length))];
console.log(`events ${EVENTS}, APIs ${apis.size}, API-days ${apiDays}, API-hours ${apiHours}`);
console.log(
  `tuples ${tuplesTotal} (${(tuplesTotal / EVENTS).toFixed(2)} per event), ${tupleBytes} B = ${perEvent(tupleBytes)} B/event`,
);
console.log(`API-day value bytes: p50 ${q(0.5)}, p90 ${q(0.9)}, p99 ${q(0.99)}, max ${q(1)}`);
console.log(`API-day keys: ${apiDays} x ${KEY_BYTES} B = ${perEvent(apiDays * KEY_BYTES)} B/event`);
console.log(
  `dictionaries as one name->code hash per API: ${dictionaryEntries} names, ${dictionaryBytes} B + ${apis.size} keys = ${perEvent(dictionaryBytes + apis.size * KEY_BYTES)} B/event`,
);
const total = tupleBytes + apiDays * KEY_BYTES + dictionaryBytes + apis.size * KEY_BYTES;
console.log(`total ${perEvent(total)} B/event (before per-API state: off, cmp, indexes)`);
console.log(
  `per API-month instead: ${monthBytes.size} values, ${perEvent(monthTotal)} B/event of tuples + ${perEvent(monthBytes.size * KEY_BYTES)} B/event of keys`,
);
