/**
 * Micro-benchmark of SectionSums (read-sections.ts) on synthetic tag-set sections, as a query by day
 * over a quarter reads them: 90 day sections of the `s` cube with 1,351 rows each (the medium
 * tenant's tag sets), summed per day with a filter that passes ~40% of the rows (one tag), without
 * groups and grouped by tag set.
 *
 *   npx tsx libs/store/bench/section-sums.ts [--rounds 5] [--repeat 200]
 *
 * Prints ns per row visited, per round; compare rounds of one run only.
 */
import { parseArgs } from 'node:util';
import { OUTCOME_COUNT } from '@va/contracts';
import { CodeCounts } from '../src/read-fields';
import { compactCounts, SectionSums, type SectionSelection, type SectionView } from '../src/read-sections';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, repeat: { type: 'string', default: '200' } },
});
const ROWS = 1351;
const DAYS = 90;

/** mulberry32, seeded: the same sections in every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(1);

const sections: SectionView[] = Array.from({ length: DAYS }, (_, day) => {
  const counts = new Float64Array(ROWS * OUTCOME_COUNT);
  for (let n = 0; n < counts.length; n++) counts[n] = next() < 0.5 ? 0 : Math.floor(next() * 200);
  return compactCounts({
    cube: 's',
    version: day + 1,
    rows: ROWS,
    dims: [Uint32Array.from({ length: ROWS }, (_, r) => r)],
    counts,
  });
});
const sets = Array.from({ length: ROWS }, (_, code) => code).filter(() => next() < 0.4);

function run(selection: SectionSelection): number {
  const started = process.hrtime.bigint();
  const repeat = Number(values.repeat);
  for (let n = 0; n < repeat; n++) {
    const sums = new SectionSums(selection);
    sections.forEach((section, day) => sums.add(day, section, 1));
    sums.addTo(new CodeCounts());
  }
  return Number(process.hrtime.bigint() - started) / (repeat * DAYS * ROWS);
}

const cases: [string, SectionSelection][] = [
  [
    'one tag, by day',
    { keys: null, identities: null, sets, group: { key: false, identity: false, set: false } },
  ],
  [
    'one tag, by day and tag set',
    { keys: null, identities: null, sets, group: { key: false, identity: false, set: true } },
  ],
  [
    'no filter, by day',
    { keys: null, identities: null, sets: null, group: { key: false, identity: false, set: false } },
  ],
];
for (let round = 1; round <= Number(values.rounds); round++) {
  console.log(
    `round ${round}: ${cases.map(([name, sel]) => `${name} ${run(sel).toFixed(2)} ns/row`).join(', ')}`,
  );
}
