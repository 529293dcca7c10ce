import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OUTCOME_COUNT } from '@va/contracts';
import { compactCounts } from './read-sections';
import { SectionRows } from './section/codec';
import { filteredTotal } from './section-totals';

/** An identity × key (x) section from rows of [identity, key, outcome, n]. */
function xSection(rows: readonly [number, number, number, number][]) {
  const builder = new SectionRows('x');
  for (const [i, k, outcome, n] of rows) builder.add([i, k], outcome, n);
  return compactCounts(builder.toSection(1));
}

function plainTotal(
  rows: readonly [number, number, number, number][],
  column: 0 | 1 | null,
  codes: readonly number[] | null,
): number[] | null {
  const total = new Array<number>(OUTCOME_COUNT).fill(0);
  let passed = false;
  for (const row of rows) {
    if (codes !== null && !codes.includes(row[column!])) continue;
    total[row[2]]! += row[3];
    passed = true;
  }
  return passed ? total : null;
}

const rowsArb = fc.array(
  fc.tuple(
    fc.integer({ min: 0, max: 40 }),
    fc.integer({ min: 0, max: 40 }),
    fc.integer({ min: 0, max: OUTCOME_COUNT - 1 }),
    fc.integer({ min: 1, max: 1000 }),
  ),
  { maxLength: 300 },
);

describe('filteredTotal', () => {
  it('sums the rows the filter allows, on either column, searched or scanned (property)', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.constantFrom<0 | 1 | null>(0, 1, null),
        fc.array(fc.integer({ min: 0, max: 45 }), { maxLength: 60 }),
        (rows, column, codes) => {
          const section = xSection(rows);
          const filter = column === null ? null : codes;
          const got = filteredTotal(section, column === null ? null : section.dims[column]!, filter);
          expect(got === null ? null : Array.from(got)).toEqual(plainTotal(rows, column, filter));
        },
      ),
    );
  });

  it('is kept per section and codes array; an array grown in place since is summed again', () => {
    const section = xSection([
      [1, 0, 0, 5],
      [2, 0, 0, 7],
    ]);
    const codes = [1];
    const first = filteredTotal(section, section.dims[0]!, codes);
    expect(filteredTotal(section, section.dims[0]!, codes)).toBe(first);
    expect(first![0]).toBe(5);
    codes.push(2);
    expect(filteredTotal(section, section.dims[0]!, codes)![0]).toBe(12);
    expect(filteredTotal(section, section.dims[0]!, [3])).toBeNull();
  });
});
