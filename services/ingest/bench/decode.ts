/**
 * Decoder micro-benchmark (not a test): `npx tsx services/ingest/bench/decode.ts [--events N]`.
 *
 * Decodes N generated events (the bench's live shape: 50 APIs, 20,000 keys, identities, tags,
 * regions) with the byte scanner + fallback (decodeEvent) and with the reference alone
 * (JSON.parse + compiled schema), in alternating rounds on one thread, and prints the median ns
 * per event of the rounds after two warm-ups (GC included, as the worker pays it).
 */
import { parseArgs } from 'node:util';
import { decodeContext, decodeEvent, decodeEventReference } from '../src/decode';
import { createGenerator } from '@va/testkit';

const { values } = parseArgs({ options: { events: { type: 'string', default: '200000' } } });
const count = Number(values.events);
const now = Date.now();
const ctx = decodeContext(now, {
  hourMs: 35 * 86_400_000,
  dayMs: 400 * 86_400_000,
  monthMs: 5 * 366 * 86_400_000,
});
const generator = createGenerator({
  seed: 1,
  apis: 50,
  keys: 20_000,
  identities: 5_000,
  startMs: now - 60_000,
  spanMs: 60_000,
});
const values_ = Array.from({ length: count }, () => Buffer.from(JSON.stringify(generator.next())));

type Decode = typeof decodeEvent;
function round(decode: Decode): number {
  const start = process.hrtime.bigint();
  let ok = 0;
  for (const value of values_) if (decode(value, ctx, { receivedAt: now }).ok) ok++;
  if (ok !== values_.length) throw new Error(`${values_.length - ok} events refused`);
  return Number(process.hrtime.bigint() - start) / values_.length;
}

const results: Record<string, number[]> = { scanner: [], reference: [] };
for (let i = 0; i < 7; i++) {
  results.scanner!.push(round(decodeEvent));
  results.reference!.push(round(decodeEventReference));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const scanner = median(results.scanner!.slice(2));
const reference = median(results.reference!.slice(2));
console.log(
  `${count} events, ${(values_.reduce((s, v) => s + v.length, 0) / count).toFixed(0)} bytes each on average`,
);
console.log(`decodeEvent (scanner + fallback): ${scanner.toFixed(0)} ns/event`);
console.log(`reference (JSON.parse + schema):  ${reference.toFixed(0)} ns/event`);
console.log(`ratio: ${(reference / scanner).toFixed(2)}x`);
