import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTCOME_COUNT } from '@va/contracts';
import type { Cube } from '../keys';
import { NO_IDENTITY, type Section } from './codec';
import { sectionsOfTuples } from './tuple-sections';

type Tuple = [k: number, i: number, s: number, o: number, n: number];

/** The rows of a section as "codes → counts", in the section's order. */
const rowsOf = (section: Section): [string, number[]][] =>
  Array.from({ length: section.rows }, (_, r) => [
    section.dims.map((column) => column[r]).join('.'),
    Array.from(section.counts.subarray(r * OUTCOME_COUNT, (r + 1) * OUTCOME_COUNT)),
  ]);

/** The same rows, summed the plain way: by the codes each cube keeps, sorted by those codes. */
function expected(tuples: readonly Tuple[], cube: Cube): [string, number[]][] {
  const rows = new Map<string, { codes: number[]; counts: number[] }>();
  for (const [k, i, s, o, n] of tuples) {
    const identity = i >= 0 ? i : NO_IDENTITY;
    const codes = { t: [], k: [k], i: i >= 0 ? [i] : null, s: [s], f: [identity, k, s], x: [identity, k] }[
      cube
    ];
    if (codes === null) continue;
    const id = codes.join('.');
    let row = rows.get(id);
    if (!row) rows.set(id, (row = { codes, counts: new Array<number>(OUTCOME_COUNT).fill(0) }));
    row.counts[o]! += n;
  }
  const byCodes = (a: number[], b: number[]) => {
    for (let d = 0; d < a.length; d++) if (a[d] !== b[d]) return a[d]! - b[d]!;
    return 0;
  };
  const sorted = [...rows.values()].sort((a, b) => byCodes(a.codes, b.codes));
  return sorted.map((row) => [row.codes.join('.'), row.counts]);
}

// Small codes (the packed numeric row ids) and codes past the packed range (the compared columns).
const keyCode = fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 2 ** 22 }));
const identityCode = fc.oneof(
  fc.constant(-1),
  fc.integer({ min: 0, max: 10 }),
  fc.integer({ min: 0, max: 2 ** 17 }),
);
const setCode = fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 2 ** 14 }));
const tuple = fc.tuple(
  keyCode,
  identityCode,
  setCode,
  fc.integer({ min: 0, max: OUTCOME_COUNT - 1 }),
  fc.integer({ min: 1, max: 1000 }),
);

describe('sectionsOfTuples', () => {
  it('sums the tuples of each cube by its codes, rows in code order (packed ids and wide ones)', () => {
    fc.assert(
      fc.property(fc.array(tuple, { maxLength: 300 }), (tuples) => {
        const sections = sectionsOfTuples({
          forEach: (fn) => tuples.forEach(([k, i, s, o, n]) => fn(0, k, i, s, o, n)),
        });
        for (const cube of ['k', 'i', 's', 'f'] as const) {
          expect(rowsOf(sections.get(cube)!), cube).toEqual(expected(tuples, cube));
        }
        const total = sections.get('t')!;
        const sums = new Array<number>(OUTCOME_COUNT).fill(0);
        for (const [, , , o, n] of tuples) sums[o]! += n;
        expect(total.rows).toBe(tuples.length > 0 ? 1 : 0);
        if (tuples.length > 0) expect(Array.from(total.counts)).toEqual(sums);
      }),
      { numRuns: 300 },
    );
  });
});
