/**
 * planReads for the day and month slices of a time zone (docs/api.md#time-zones): which buckets
 * it chooses. That the counts are right is the property of oracle/zones.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { planReads, type BucketRead, type PlanInput } from './planner';
import { dayOf, hourOf, monthOf, type Horizons } from './time';

const H = (iso: string): number => hourOf(Date.parse(`${iso}:00:00Z`));
const D = (iso: string): number => dayOf(Date.parse(`${iso}T00:00:00Z`));
const M = (iso: string): number => monthOf(Date.parse(`${iso}-01T00:00:00Z`));
const ALL: Horizons = { hour: 0, day: 0, month: 0 };
const NY = 'America/New_York';

/** Reads as "+d123" / "-h456", grouped by slice (ISO). */
function brief(reads: BucketRead[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of reads) {
    const key = new Date(r.slice!).toISOString();
    (out[key] ??= []).push(`${r.subtract ? '-' : '+'}${r.res}${r.index}`);
  }
  return out;
}
const hours = (sign: '+' | '-', first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => `${sign}h${first + i}`);

const plan = (input: Partial<PlanInput> & Pick<PlanInput, 'startHour' | 'endHour'>) =>
  planReads({ compactedThrough: H('2027-01-01T00'), horizons: ALL, ...input });

describe('planReads in a zone: the buckets chosen', () => {
  it('a New York day (UTC-5) is its UTC day minus hours 00-04, plus the next day 00-04', () => {
    const p = plan({
      startHour: H('2026-01-15T05'),
      endHour: H('2026-01-16T04'),
      granularity: 'day',
      timeZone: NY,
    });
    expect(brief(p.reads)).toEqual({
      '2026-01-15T05:00:00.000Z': [
        `+d${D('2026-01-15')}`,
        ...hours('-', H('2026-01-15T00'), H('2026-01-15T04')),
        ...hours('+', H('2026-01-16T00'), H('2026-01-16T04')),
      ],
    });
    expect(p.precision).toBe('hour');
    expect(p.edgesOnHours).toBeUndefined();
  });

  it('the DST days of 2026 in New York: March 8 has 23 hours, November 1 has 25', () => {
    const mar = plan({
      startHour: H('2026-03-08T05'),
      endHour: H('2026-03-09T03'),
      granularity: 'day',
      timeZone: NY,
    });
    expect(brief(mar.reads)['2026-03-08T05:00:00.000Z']).toEqual([
      `+d${D('2026-03-08')}`,
      ...hours('-', H('2026-03-08T00'), H('2026-03-08T04')),
      ...hours('+', H('2026-03-09T00'), H('2026-03-09T03')),
    ]);
    const nov = plan({
      startHour: H('2026-11-01T04'),
      endHour: H('2026-11-02T04'),
      granularity: 'day',
      timeZone: NY,
    });
    expect(brief(nov.reads)['2026-11-01T04:00:00.000Z']).toEqual([
      `+d${D('2026-11-01')}`,
      ...hours('-', H('2026-11-01T00'), H('2026-11-01T03')),
      ...hours('+', H('2026-11-02T00'), H('2026-11-02T04')),
    ]);
  });

  it('a New York month is its UTC month minus its first hours, plus the next month first hours', () => {
    const p = plan({
      startHour: H('2026-04-01T04'),
      endHour: H('2026-05-01T03'),
      granularity: 'month',
      timeZone: NY,
    });
    expect(brief(p.reads)).toEqual({
      '2026-04-01T04:00:00.000Z': [
        `+m${M('2026-04')}`,
        ...hours('-', H('2026-04-01T00'), H('2026-04-01T03')),
        ...hours('+', H('2026-05-01T00'), H('2026-05-01T03')),
      ],
    });
  });

  it('Berlin (UTC+1): a day is the previous UTC day 23:00 plus its own day minus 23:00', () => {
    const p = plan({
      startHour: H('2026-01-14T23'),
      endHour: H('2026-01-15T22'),
      granularity: 'day',
      timeZone: 'Europe/Berlin',
    });
    expect(brief(p.reads)).toEqual({
      '2026-01-14T23:00:00.000Z': [
        `+h${H('2026-01-14T23')}`,
        `+d${D('2026-01-15')}`,
        `-h${H('2026-01-15T23')}`,
      ],
    });
  });

  it('hours not compacted yet are added, never subtracted', () => {
    const p = plan({
      startHour: H('2026-01-15T05'),
      endHour: H('2026-01-16T04'),
      granularity: 'day',
      timeZone: NY,
      compactedThrough: H('2026-01-15T20'),
    });
    expect(brief(p.reads)['2026-01-15T05:00:00.000Z']).toEqual([
      `+d${D('2026-01-15')}`,
      ...hours('-', H('2026-01-15T00'), H('2026-01-15T04')),
      ...hours('+', H('2026-01-15T21'), H('2026-01-15T23')),
      ...hours('+', H('2026-01-16T00'), H('2026-01-16T04')),
    ]);
  });

  it('Kathmandu (+05:45): the hour holding local midnight counts in the earlier day; X-Precision hour', () => {
    // 2026-01-15 starts at 2026-01-14T18:15Z: hour 18Z starts before it, in January 14.
    const p = plan({
      startHour: H('2026-01-14T18'),
      endHour: H('2026-01-15T17'),
      granularity: 'day',
      timeZone: 'Asia/Kathmandu',
    });
    const b = brief(p.reads);
    expect(Object.keys(b)).toEqual(['2026-01-13T18:15:00.000Z', '2026-01-14T18:15:00.000Z']);
    expect(b['2026-01-13T18:15:00.000Z']).toEqual([`+h${H('2026-01-14T18')}`]);
    expect(b['2026-01-14T18:15:00.000Z']).toEqual([
      ...hours('+', H('2026-01-14T19'), H('2026-01-14T23')),
      `+d${D('2026-01-15')}`,
      ...hours('-', H('2026-01-15T18'), H('2026-01-15T23')),
    ]);
    expect(p.edgesOnHours).toBe(false);
    const inside = plan({
      startHour: H('2026-01-14T19'),
      endHour: H('2026-01-15T17'),
      granularity: 'day',
      timeZone: 'Asia/Kathmandu',
    });
    expect(inside.edgesOnHours).toBeUndefined(); // no edge inside the range
  });

  it('hour slices and answers without granularity ignore the zone', () => {
    for (const granularity of [undefined, 'hour'] as const) {
      const input = { startHour: H('2026-01-15T05'), endHour: H('2026-02-16T04'), granularity };
      expect(plan({ ...input, timeZone: 'Asia/Kolkata' })).toEqual(plan(input));
    }
  });

  it('past the hour retention a UTC day counts whole in the local day of its date, kept within the range', () => {
    const horizons: Horizons = { hour: H('2026-01-20T10'), day: 0, month: 0 };
    const p = plan({
      startHour: H('2026-01-15T05'),
      endHour: H('2026-01-17T04'),
      granularity: 'day',
      timeZone: NY,
      horizons,
    });
    expect(brief(p.reads)).toEqual({
      '2026-01-15T05:00:00.000Z': [`+d${D('2026-01-15')}`],
      // January 17 (UTC) holds the range's last hours, 00-04Z: local January 16, the last slice.
      '2026-01-16T05:00:00.000Z': [`+d${D('2026-01-16')}`, `+d${D('2026-01-17')}`],
    });
    expect(p.precision).toBe('day');
  });

  it('across the hour horizon: the rollup in its date, exact hours after the horizon', () => {
    const horizons: Horizons = { hour: H('2026-01-16T10'), day: 0, month: 0 };
    const p = plan({
      startHour: H('2026-01-15T05'),
      endHour: H('2026-01-17T04'),
      granularity: 'day',
      timeZone: NY,
      horizons,
    });
    const b = brief(p.reads);
    expect(b['2026-01-15T05:00:00.000Z']).toEqual([`+d${D('2026-01-15')}`]);
    // Hours 00-09 of January 16 come from its rollup, 10-23 are exact: all of them local January 16.
    expect(b['2026-01-16T05:00:00.000Z']).toEqual([
      `+d${D('2026-01-16')}`,
      ...hours('+', H('2026-01-17T00'), H('2026-01-17T04')),
    ]);
    expect(p.precision).toBe('day');
  });
});
