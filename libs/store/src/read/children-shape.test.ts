import { describe, expect, it } from 'vitest';
import { horizonsAt, hourOf, planReads, type BucketRead } from '@va/core';
import { dayHourGroups, monthDayGroups, monthEdgeGroups, monthHourGroups } from '../rollup-children';
import { childKeysOf, groupsOf, rangesId, shapeOf } from './children-shape';
import { TEST_RETENTION } from '../testing/ingest-events';

const now = Date.UTC(2026, 10, 20, 15, 30);
const nowHour = hourOf(now);
const cmp = nowHour - 2;
const plan = (timeZone: string, billing = false): BucketRead[] =>
  planReads({
    startHour: nowHour - 30 * 24,
    endHour: nowHour,
    granularity: 'day',
    compactedThrough: cmp,
    horizons: horizonsAt(now, TEST_RETENTION),
    dataThroughHour: nowHour,
    timeZone,
    ...(billing && { billingZone: { n: 1, since: 0, firstMonthEdgeDay: 0 } }),
  }).reads;

describe('shapeOf', () => {
  it("gives a rollup's children in order of first read, and its runs per (slice, sign)", () => {
    const reads: BucketRead[] = [
      { res: 'h', index: 5, slice: 100 },
      { res: 'h', index: 5, slice: 200, subtract: true },
      { res: 'h', index: 6, slice: 100 },
      { res: 'h', index: 7, slice: 200, subtract: true },
      { res: 'h', index: 8, slice: 200 },
    ];
    const shape = shapeOf(reads);
    expect(shape.indexes).toEqual([5, 6, 7, 8]);
    expect(shape.runs).toEqual([
      { slice: 100, sign: 1, positions: [0, 1], id: '5,6' },
      { slice: 200, sign: -1, positions: [0, 2], id: '5,7' },
      { slice: 200, sign: 1, positions: [3], id: '8' },
    ]);
    expect(shape.id).toBe('5-8');
    expect(shapeOf(reads)).toBe(shape);
  });

  it('names a set of children by its runs of consecutive indexes, whatever their order', () => {
    expect(rangesId([])).toBe('');
    expect(rangesId([7])).toBe('7');
    expect(rangesId([9, 1, 2, 3, 7, 10, 3])).toBe('1-3,7,9-10');
    expect(rangesId([498216, 498192, 498193])).toBe('498192-498193,498216');
  });

  it("counts every read of a New York month's hours once, with its sign", () => {
    for (const hours of groupsOf(plan('America/New_York'), cmp).months.map((m) => m.hours)) {
      const { indexes, runs } = shapeOf(hours);
      const signed = runs.flatMap((run) =>
        run.positions.map((p) => `${indexes[p]}/${run.slice}/${run.sign}`),
      );
      expect(signed.sort()).toEqual(
        hours.map((read) => `${read.index}/${read.slice}/${read.subtract ? -1 : 1}`).sort(),
      );
    }
  });
});

describe('groupsOf', () => {
  it('groups as monthDayGroups, monthHourGroups, monthEdgeGroups and dayHourGroups do, once per reads and compaction point', () => {
    const cases = [['UTC'], ['America/New_York'], ['Asia/Kolkata'], ['Asia/Kolkata', true]] as const;
    for (const [zone, billing] of cases) {
      const reads = plan(zone, billing);
      const groups = groupsOf(reads, cmp);
      const grouped = monthDayGroups(reads);
      const monthHours = monthHourGroups(reads, new Set(grouped.keys()), cmp);
      const monthEdges = monthEdgeGroups(reads, new Set(grouped.keys()), cmp);
      expect(groups.months).toEqual(
        [...grouped].map(([month, days]) => ({
          month,
          days,
          hours: monthHours.get(month) ?? [],
          edges: monthEdges.get(month) ?? [],
        })),
      );
      const rest = reads.filter((read) => !groups.withMonth.has(read));
      expect(groups.days).toEqual([...dayHourGroups(rest, cmp)]);
      expect(groupsOf(reads, cmp)).toBe(groups);
      expect(groupsOf(reads, cmp - 1)).not.toBe(groups);
      // A billing zone's edges go with their months.
      expect(groups.months.some((m) => m.edges.length > 0)).toBe(billing === true);
    }
  });
});

describe('childKeysOf', () => {
  it('names each child once per reads array and record', () => {
    const reads: BucketRead[] = [
      { res: 'h', index: 5, slice: 1 },
      { res: 'h', index: 6, slice: 1, subtract: true },
    ];
    let calls = 0;
    const keyOf = (i: number) => (calls++, `k${i}`);
    expect(childKeysOf(reads, 'r1', keyOf)).toEqual(['k5', 'k6']);
    expect(childKeysOf(reads, 'r1', keyOf)).toEqual(['k5', 'k6']);
    expect(calls).toBe(2);
    expect(childKeysOf(reads, 'r2', (i) => `j${i}`)).toEqual(['j5', 'j6']);
  });
});
