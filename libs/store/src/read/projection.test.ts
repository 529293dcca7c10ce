import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OUTCOME_COUNT } from '@va/contracts';
import { compactCounts } from '../read-sections';
import { SectionRows } from '../section/codec';
import { projectedOf, projectSection, ProjectedSums, type Projection } from './projection';

/** Tag-set code -> its sorted tags (code 3 repeats a tag: the dictionary never does, the projection copes). */
const SETS: (readonly string[])[] = [[], ['a'], ['a', 'b'], ['b', 'b'], ['c']];
const REGIONS: (string | undefined)[] = [undefined, 'eu', 'eu', 'us', undefined];

const byTag = (epoch: object = {}): Projection => ({
  kind: 'tag',
  epoch,
  groupsOf: (code) => SETS[code],
});
const byRegion: Projection = {
  kind: 'region',
  epoch: {},
  groupsOf: (code) => (code >= REGIONS.length ? undefined : REGIONS[code] ? [REGIONS[code]!] : []),
};

function section(rows: [code: number, outcome: number, n: number][]) {
  const builder = new SectionRows('s');
  for (const [code, outcome, n] of rows) builder.add([code], outcome, n);
  return compactCounts(builder.toSection(1));
}

/** The projection as buildRows sees it: per group, the nine outcomes summed over the rows counting in it. */
function asMap(names: readonly string[], counts: ArrayLike<number>): Record<string, number[]> {
  return Object.fromEntries(
    names.map((name, n) => [
      name,
      Array.from({ length: OUTCOME_COUNT }, (_, o) => counts[n * OUTCOME_COUNT + o]!),
    ]),
  );
}

/** Rows of [tag-set code, outcome, count] of every code of SETS. */
const ROWS: [number, number, number][] = [
  [0, 0, 7],
  [1, 0, 1],
  [2, 0, 2],
  [2, 3, 5],
  [3, 1, 4],
  [4, 8, 9],
];

describe('projectSection', () => {
  it('adds each row to every distinct tag of its set (a repeated tag once, an empty set nowhere)', () => {
    const p = projectSection(section(ROWS), byTag())!;
    const expected = (pairs: [number, number][]) => {
      const row = new Array<number>(OUTCOME_COUNT).fill(0);
      for (const [o, n] of pairs) row[o] = n;
      return row;
    };
    expect(asMap(p.names, p.counts)).toEqual({
      a: expected([
        [0, 3],
        [3, 5],
      ]),
      b: expected([
        [0, 2],
        [3, 5],
        [1, 4],
      ]),
      c: expected([[8, 9]]),
    });
  });

  it('by region: a set without a region counts nowhere', () => {
    const p = projectSection(section(ROWS), byRegion)!;
    expect(p.names).toEqual(['eu', 'us']);
    expect([p.counts[0], p.counts[3], p.counts[OUTCOME_COUNT + 1]]).toEqual([3, 5, 4]);
  });

  it('a code the dictionary has not loaded: no projection (the caller sums the codes)', () => {
    expect(projectSection(section([[9, 0, 1]]), byRegion)).toBeUndefined();
  });

  it('sums the same per tag as the rows one by one, for any section (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 4 }),
            fc.integer({ min: 0, max: 8 }),
            fc.integer({ min: 1, max: 1e6 }),
          ),
        ),
        (rows) => {
          const p = projectSection(section(rows), byTag())!;
          const expected: Record<string, number[]> = {};
          for (const [code, outcome, n] of rows) {
            for (const tag of new Set(SETS[code])) {
              expected[tag] ??= new Array<number>(OUTCOME_COUNT).fill(0);
              expected[tag][outcome]! += n;
            }
          }
          expect(asMap(p.names, p.counts)).toEqual(expected);
        },
      ),
    );
  });
});

describe('projectedOf', () => {
  it('is made once per section object and projection epoch', () => {
    const s = section([[2, 0, 1]]);
    const epoch = {};
    const first = projectedOf(s, byTag(epoch));
    expect(projectedOf(s, byTag(epoch))).toBe(first);
    expect(projectedOf(s, byTag({}))).not.toBe(first);
    expect(projectedOf(s, byRegion)!.names).toEqual(['eu']);
  });
});

describe('ProjectedSums', () => {
  it('sums signed projections per slice into cells of one tag, or one region', () => {
    const p = projectSection(section([[2, 0, 5]]), byTag())!;
    const sums = new ProjectedSums('tag');
    sums.add(0, p, 1);
    sums.add(0, p, 1);
    sums.add(1, p, 1);
    sums.add(1, projectSection(section([[1, 0, 2]]), byTag())!, -1);
    const cells = sums.cells().map((c) => ({ ...c, counts: c.counts[0] }));
    expect(cells).toEqual([
      { slice: 0, tags: ['a'], counts: 10 },
      { slice: 0, tags: ['b'], counts: 10 },
      { slice: 1, tags: ['a'], counts: 3 },
      { slice: 1, tags: ['b'], counts: 5 },
    ]);
    const regions = new ProjectedSums('region');
    regions.add(null, projectSection(section([[3, 0, 4]]), byRegion)!, 1);
    expect(regions.cells()).toEqual([{ slice: null, region: 'us', counts: [4, 0, 0, 0, 0, 0, 0, 0, 0] }]);
  });
});
