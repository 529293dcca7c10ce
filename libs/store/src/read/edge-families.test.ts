import { dayOfHour, hourOf, minuteOf, type BucketRead } from '@va/core';
import { describe, expect, it } from 'vitest';
import { edgeFamilies } from './edge-families';

const unit = (read: BucketRead, kind = 'S') => ({ read, items: [{ kind }] });
const H = (iso: string) => hourOf(Date.parse(`${iso}:00:00Z`));
const own = (u: { read: BucketRead }) => `${u.read.res}${u.read.index}`;

describe('edgeFamilies', () => {
  it('an edge joins every family reading its UTC day, and nothing else', () => {
    const edge = unit({ res: 'z1d', index: minuteOf(Date.parse('2026-03-10T18:30:00Z')), slice: 0 });
    const sameDay = [
      unit({ res: 'h', index: H('2026-03-10T03'), slice: 0 }),
      unit({ res: 'h', index: H('2026-03-10T20'), slice: 0 }),
    ];
    const nextDay = unit({ res: 'h', index: H('2026-03-11T03'), slice: 0 });
    const day = unit({ res: 'd', index: dayOfHour(H('2026-03-10T00')), slice: 0 });
    const joined = edgeFamilies([edge, ...sameDay, nextDay, day], own);
    const familyOf = (u: { read: BucketRead }) => joined.get(own(u)) ?? own(u);
    const edgeFamily = familyOf(edge);
    for (const u of [...sameDay, day]) expect(familyOf(u)).toBe(edgeFamily);
    expect(familyOf(nextDay)).not.toBe(edgeFamily);
  });

  it('a month read, and a rollup-children unit, join the edges of their month', () => {
    const edges = [10, 20].map((d) =>
      unit({ res: 'z2m', index: minuteOf(Date.UTC(2026, 2, d, 5)), slice: 0 }),
    );
    const month = unit({ res: 'm', index: 674, slice: 0 }); // March 2026
    const children = unit({ res: 'd', index: dayOfHour(H('2026-03-01T00')), slice: 0 }, 'M');
    const april = unit({ res: 'h', index: H('2026-04-02T00'), slice: 0 });
    const joined = edgeFamilies([...edges, month, children, april], own);
    const familyOf = (u: { read: BucketRead }) => joined.get(own(u)) ?? own(u);
    expect(new Set([...edges, month, children].map(familyOf)).size).toBe(1);
    expect(familyOf(april)).not.toBe(familyOf(month));
  });

  it('without edges, nothing joins', () => {
    expect(
      edgeFamilies([unit({ res: 'h', index: 5, slice: 0 }), unit({ res: 'd', index: 0, slice: 0 })], own)
        .size,
    ).toBe(0);
  });
});
