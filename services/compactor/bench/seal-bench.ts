/**
 * What re-sealing a large open bucket costs the compactor (docs/store-v2.md "Sealing"): a month `f`
 * section of about 850k rows (synthetic, Zipf-like keys over 2,000 identities and 1,351 tag sets) plus a
 * one-hour delta of 5,000 events: decode, merge, derive x, encode. Pure CPU, no Redis.
 *   npx tsx services/compactor/bench/seal-bench.ts [events=1100000] [delta=5000]
 */
import {
  decodeSection,
  deriveIdentityKey,
  encodeSection,
  mergeSections,
  SectionRows,
  type Section,
} from '@va/store';

const [events = 1_100_000, deltaEvents = 5_000] = process.argv.slice(2).map(Number);

function synthetic(n: number): Section {
  const rows = new SectionRows('f');
  for (let i = 0; i < n; i++) {
    const key = Math.floor(10_000 * Math.random() ** 3);
    const outcome = Math.random() < 0.8 ? 0 : Math.floor(Math.random() * 9);
    rows.add([key % 2_000, key, Math.floor(1_351 * Math.random() ** 2)], outcome, 1);
  }
  return rows.toSection(1);
}

const bytes = encodeSection(synthetic(events));
const delta = synthetic(deltaEvents);
const t0 = performance.now();
const old = decodeSection(bytes);
const t1 = performance.now();
const merged = mergeSections(old, delta, 2);
const t2 = performance.now();
const x = deriveIdentityKey(merged, 2);
const t3 = performance.now();
const written = encodeSection(merged).length + encodeSection(x).length;
const t4 = performance.now();
const ms = (a: number, b: number) => Math.round(b - a);
console.log(
  JSON.stringify({
    rows: old.rows,
    sectionBytes: bytes.length,
    bytesPerRow: +(bytes.length / old.rows).toFixed(2),
    decodeMs: ms(t0, t1),
    mergeMs: ms(t1, t2),
    deriveXMs: ms(t2, t3),
    encodeMs: ms(t3, t4),
    totalMs: ms(t0, t4),
    writtenBytes: written,
  }),
);
