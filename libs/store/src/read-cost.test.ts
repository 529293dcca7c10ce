import { describe, expect, it } from 'vitest';
import { ROW_COST_US, sectionRowsBound, sumCostUs } from './read-cost';
import type { CubeQuery } from './read';
import { cubeQuery } from './testing/cube-query';

const cube = (over: Partial<CubeQuery>): CubeQuery => cubeQuery({ cube: 'f', ...over });
const sizes = { k: 10_000, i: 2_000, s: 1_000 };

describe('read cost', () => {
  it('#40 heavy requests: rows grouped by two dimensions cost the composite rate, by time slices more', () => {
    const keyTags = cube({ group: { key: true, identity: false, set: true } });
    expect(sumCostUs(keyTags, sizes, 1_000_000, false)).toBeCloseTo(
      1_000_000 * (ROW_COST_US.scanned + ROW_COST_US.composite),
    );
    expect(sumCostUs(keyTags, sizes, 1_000_000, true)).toBeCloseTo(
      1_000_000 * (ROW_COST_US.scanned + ROW_COST_US.compositeSliced),
    );
  });

  it('#40 heavy requests: one grouped dimension sums densely', () => {
    const byKey = cube({ cube: 'k', group: { key: true, identity: false, set: false } });
    expect(sumCostUs(byKey, sizes, 1_000_000, true)).toBeCloseTo(
      1_000_000 * (ROW_COST_US.scanned + ROW_COST_US.dense),
    );
  });

  it('#40 heavy requests: a filter keeps its share of the rows; on the first column it skips the rest unvisited', () => {
    const group = { key: true, identity: false, set: true };
    // One key of 10,000 (second column of f): every row tested, a ten-thousandth summed.
    expect(sumCostUs(cube({ keys: [7], group }), sizes, 1_000_000, false)).toBeCloseTo(
      1_000_000 * ROW_COST_US.scanned + 100 * ROW_COST_US.composite,
    );
    // One identity of 2,000 (first column): found by binary search, the others never visited.
    expect(sumCostUs(cube({ identities: [7], group }), sizes, 1_000_000, false)).toBeCloseTo(
      500 * (ROW_COST_US.scanned + ROW_COST_US.composite),
    );
  });

  it('#40 heavy requests: the dictionaries bound a section; an unloaded one bounds nothing', () => {
    expect(sectionRowsBound(cube({ cube: 'k' }), sizes)).toBe(10_000);
    expect(
      sectionRowsBound(cube({ cube: 'f', group: { key: true, identity: true, set: true } }), sizes),
    ).toBe(2_001 * 10_000 * 1_000);
    expect(
      sectionRowsBound(cube({ cube: 'f', group: { key: true, identity: false, set: true } }), { k: 1, s: 1 }),
    ).toBe(Infinity);
    expect(sectionRowsBound(cube({ cube: 't' }), {})).toBe(1);
  });
});
