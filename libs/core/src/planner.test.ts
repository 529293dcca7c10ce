import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { HourGranularity } from '@va/contracts';
import {
  hoursOfBucket,
  inHourBucket,
  inRollups,
  planReads,
  type BucketRead,
  type PlanInput,
} from './planner';
import { horizonsAt, type Horizons, type Retention } from './time';
import { retentionModel } from './oracle/retention';
import {
  dayOf,
  hourOf,
  hoursOfDay,
  hoursOfMonth,
  monthOf,
  monthOfHour,
  sliceStartOfHour,
  DAY_MS,
} from './time';

/** Hour index of an ISO hour like "2028-02-29T05". */
const H = (iso: string): number => hourOf(Date.parse(`${iso}:00:00Z`));
const D = (iso: string): number => dayOf(Date.parse(`${iso}T00:00:00Z`));
const M = (iso: string): number => monthOf(Date.parse(`${iso}-01T00:00:00Z`));

/** Everything retained: horizons far in the past. */
const ALL: Horizons = { hour: 0, day: 0, month: 0 };

const brief = (reads: BucketRead[]) => reads.map((r) => `${r.res}${r.index}`);
const hoursRange = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => `h${first + i}`);

describe('horizonsAt', () => {
  it('is the bucket holding now - retention', () => {
    const now = Date.parse('2027-03-10T12:30:00Z');
    const hz = horizonsAt(now, { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS });
    expect(hz.hour).toBe(H('2027-02-03T12'));
    expect(hz.day).toBe(D('2026-02-03'));
    expect(hz.month).toBe(M('2022-03'));
  });
  it('keeps a bucket until exactly its end + retention', () => {
    // Hour 10:00 ends at 11:00; with 1h retention it is gone at 12:00, kept at 11:59:59.999.
    const ret = { hourMs: 3_600_000, dayMs: DAY_MS, monthMs: DAY_MS };
    expect(horizonsAt(Date.parse('2027-01-01T12:00:00Z'), ret).hour).toBe(H('2027-01-01T11'));
    expect(horizonsAt(Date.parse('2027-01-01T11:59:59.999Z'), ret).hour).toBe(H('2027-01-01T10'));
  });
});

describe('planReads: fully retained', () => {
  it('a single hour is one hour bucket', () => {
    const h = H('2027-05-05T05');
    expect(planReads({ startHour: h, endHour: h, compactedThrough: h, horizons: ALL })).toEqual({
      reads: [{ res: 'h', index: h, slice: null }],
      precision: 'hour',
    });
  });

  it('a whole compacted month is one month bucket', () => {
    const plan = planReads({
      startHour: H('2027-01-01T00'),
      endHour: H('2027-01-31T23'),
      compactedThrough: H('2027-01-31T23'),
      horizons: ALL,
    });
    expect(brief(plan.reads)).toEqual([`m${M('2027-01')}`]);
    expect(plan.precision).toBe('hour');
  });

  it('an open month (compacted up to some hour) is its bucket plus the hours after cmp', () => {
    const plan = planReads({
      startHour: H('2027-01-01T00'),
      endHour: H('2027-01-31T23'),
      compactedThrough: H('2027-01-31T22'),
      horizons: ALL,
    });
    expect(brief(plan.reads)).toEqual([`m${M('2027-01')}`, `h${H('2027-01-31T23')}`]);
  });

  it('"the last 30 days": the days of last month, this month so far, and the hours after cmp', () => {
    const plan = planReads({
      startHour: H('2027-02-10T00'),
      endHour: H('2027-03-11T23'),
      compactedThrough: H('2027-03-11T08'),
      horizons: ALL,
    });
    const days = Array.from({ length: 19 }, (_, i) => `d${D('2027-02-10') + i}`);
    expect(brief(plan.reads)).toEqual([
      ...days,
      `m${M('2027-03')}`,
      ...hoursRange(H('2027-03-11T09'), H('2027-03-11T23')),
    ]);
  });

  it('an open month holding one day or less is read as that day, not as the month', () => {
    const plan = planReads({
      startHour: H('2027-02-27T00'),
      endHour: H('2027-03-01T23'),
      compactedThrough: H('2027-03-01T10'),
      horizons: ALL,
    });
    expect(brief(plan.reads)).toEqual([
      `d${D('2027-02-27')}`,
      `d${D('2027-02-28')}`,
      `d${D('2027-03-01')}`,
      ...hoursRange(H('2027-03-01T11'), H('2027-03-01T23')),
    ]);
  });

  it('an open rollup is not read when the range leaves out one of its compacted hours', () => {
    const plan = planReads({
      startHour: H('2027-03-01T01'),
      endHour: H('2027-03-20T23'),
      compactedThrough: H('2027-03-20T05'),
      horizons: ALL,
    });
    const reads = brief(plan.reads);
    expect(reads).not.toContain(`m${M('2027-03')}`);
    expect(reads).not.toContain(`d${D('2027-03-01')}`);
    expect(reads).toContain(`d${D('2027-03-20')}`);
  });

  it('a range starting and ending inside months: hours, days, months, days, hours', () => {
    const plan = planReads({
      startHour: H('2027-01-30T22'),
      endHour: H('2027-03-02T01'),
      compactedThrough: H('2027-06-01T00'),
      horizons: ALL,
    });
    expect(brief(plan.reads)).toEqual([
      ...hoursRange(H('2027-01-30T22'), H('2027-01-30T23')),
      `d${D('2027-01-31')}`,
      `m${M('2027-02')}`,
      `d${D('2027-03-01')}`,
      ...hoursRange(H('2027-03-02T00'), H('2027-03-02T01')),
    ]);
  });

  it('crosses a year boundary', () => {
    const plan = planReads({
      startHour: H('2026-12-31T23'),
      endHour: H('2027-01-01T00'),
      compactedThrough: H('2027-02-01T00'),
      horizons: ALL,
    });
    expect(brief(plan.reads)).toEqual([`h${H('2026-12-31T23')}`, `h${H('2027-01-01T00')}`]);
    const years = planReads({
      startHour: H('2026-12-01T00'),
      endHour: H('2027-01-31T23'),
      compactedThrough: H('2027-02-01T00'),
      horizons: ALL,
    });
    expect(brief(years.reads)).toEqual([`m${M('2026-12')}`, `m${M('2027-01')}`]);
  });

  it('leap year: Feb 29 2028 is a day of its own and February has 29 days', () => {
    expect(hoursOfMonth(M('2028-02'))[1] - hoursOfMonth(M('2028-02'))[0] + 1).toBe(29 * 24);
    const feb29 = planReads({
      startHour: H('2028-02-29T00'),
      endHour: H('2028-02-29T23'),
      compactedThrough: H('2028-03-01T00'),
      horizons: ALL,
    });
    expect(brief(feb29.reads)).toEqual([`d${D('2028-02-29')}`]);
    const tail = planReads({
      startHour: H('2028-02-28T00'),
      endHour: H('2028-03-01T23'),
      compactedThrough: H('2028-03-01T23'),
      horizons: ALL,
    });
    expect(brief(tail.reads)).toEqual([`d${D('2028-02-28')}`, `d${D('2028-02-29')}`, `d${D('2028-03-01')}`]);
    const month = planReads({
      startHour: H('2028-02-01T00'),
      endHour: H('2028-02-29T23'),
      compactedThrough: H('2028-02-29T23'),
      horizons: ALL,
    });
    expect(brief(month.reads)).toEqual([`m${M('2028-02')}`]);
  });

  it('without compaction every hour is read from its hour bucket', () => {
    const plan = planReads({
      startHour: H('2027-01-01T00'),
      endHour: H('2027-02-28T23'),
      compactedThrough: null,
      horizons: ALL,
    });
    expect(plan.reads).toHaveLength(59 * 24);
    expect(plan.reads.every((r) => r.res === 'h')).toBe(true);
  });

  it('a partially compacted day is its bucket plus the hours after cmp', () => {
    const plan = planReads({
      startHour: H('2027-01-09T00'),
      endHour: H('2027-01-10T23'),
      compactedThrough: H('2027-01-10T12'),
      horizons: ALL,
    });
    expect(brief(plan.reads)).toEqual([
      `d${D('2027-01-09')}`,
      `d${D('2027-01-10')}`,
      ...hoursRange(H('2027-01-10T13'), H('2027-01-10T23')),
    ]);
  });

  it('a day compacted through its first hour only is read from hours', () => {
    const plan = planReads({
      startHour: H('2027-01-10T00'),
      endHour: H('2027-01-10T23'),
      compactedThrough: H('2027-01-10T00'),
      horizons: ALL,
    });
    expect(brief(plan.reads)).toEqual(hoursRange(H('2027-01-10T00'), H('2027-01-10T23')));
  });

  it('slices by day: each day slice is its own bucket set, partial edges from hours', () => {
    const plan = planReads({
      startHour: H('2027-01-09T15'),
      endHour: H('2027-01-11T02'),
      granularity: 'day',
      compactedThrough: H('2027-02-01T00'),
      horizons: ALL,
    });
    const day9 = Date.parse('2027-01-09T00:00:00Z');
    expect(plan.reads.filter((r) => r.slice === day9)).toHaveLength(9);
    expect(plan.reads.find((r) => r.res === 'd')).toEqual({
      res: 'd',
      index: D('2027-01-10'),
      slice: Date.parse('2027-01-10T00:00:00Z'),
    });
    expect(plan.reads.filter((r) => r.slice === Date.parse('2027-01-11T00:00:00Z'))).toHaveLength(3);
  });

  it('slices by month read whole compacted months and the days of partial ones', () => {
    const plan = planReads({
      startHour: H('2027-01-15T00'),
      endHour: H('2027-03-31T23'),
      granularity: 'month',
      compactedThrough: H('2027-03-20T23'),
      horizons: ALL,
    });
    const bySlice = (iso: string) =>
      brief(plan.reads.filter((r) => r.slice === Date.parse(`${iso}-01T00:00:00Z`)));
    expect(bySlice('2027-01')).toHaveLength(17);
    expect(bySlice('2027-02')).toEqual([`m${M('2027-02')}`]);
    // March: its bucket (compacted through the 20th) and the 11 days after, hour by hour.
    expect(bySlice('2027-03')).toEqual([
      `m${M('2027-03')}`,
      ...hoursRange(H('2027-03-21T00'), H('2027-03-31T23')),
    ]);
  });

  it('empty when start > end, and an open end is cut at dataThroughHour', () => {
    expect(planReads({ startHour: 10, endHour: 9, compactedThrough: null, horizons: ALL }).reads).toEqual([]);
    const now = H('2027-01-01T05');
    const plan = planReads({
      startHour: H('2027-01-01T00'),
      endHour: hourOf(253402300799999),
      compactedThrough: null,
      horizons: ALL,
      dataThroughHour: now,
    });
    expect(plan.reads).toHaveLength(6);
  });
});

describe('planReads: past the hour horizon', () => {
  const horizons: Horizons = { hour: H('2027-01-20T10'), day: D('2026-06-01'), month: M('2020-01') };

  it('an edge day past the horizon is read from its day bucket once, precision day', () => {
    const plan = planReads({
      startHour: H('2027-01-15T05'),
      endHour: H('2027-01-17T03'),
      compactedThrough: H('2027-01-25T00'),
      horizons,
    });
    // Jan 15 (from 05:00) -> whole day 15; Jan 16 whole; Jan 17 until 03:00 -> whole day 17.
    expect(brief(plan.reads)).toEqual([`d${D('2027-01-15')}`, `d${D('2027-01-16')}`, `d${D('2027-01-17')}`]);
    expect(plan.precision).toBe('day');
  });

  it('whole compacted days before the horizon are exact from their day buckets', () => {
    const plan = planReads({
      startHour: H('2027-01-15T00'),
      endHour: H('2027-01-16T23'),
      compactedThrough: H('2027-01-18T00'),
      horizons,
    });
    expect(brief(plan.reads)).toEqual([`d${D('2027-01-15')}`, `d${D('2027-01-16')}`]);
    expect(plan.precision).toBe('hour');
  });

  it('days past the horizon not compacted yet: their hour buckets (kept until compacted) beside the rollup', () => {
    const plan = planReads({
      startHour: H('2027-01-15T00'),
      endHour: H('2027-01-16T23'),
      compactedThrough: H('2027-01-15T11'),
      horizons,
    });
    expect(brief(plan.reads)).toEqual([
      `d${D('2027-01-15')}`,
      ...hoursRange(H('2027-01-15T12'), H('2027-01-15T23')),
      `d${D('2027-01-16')}`,
      ...hoursRange(H('2027-01-16T00'), H('2027-01-16T23')),
    ]);
    expect(plan.precision).toBe('hour');
  });

  it('the day straddling the horizon: day bucket plus the hours it lacks', () => {
    // The rollup of Jan 20 holds 00..09 (compacted), hours 10..23 live in hour buckets.
    const plan = planReads({
      startHour: H('2027-01-20T08'),
      endHour: H('2027-01-20T12'),
      compactedThrough: H('2027-01-20T09'),
      horizons,
    });
    expect(brief(plan.reads)).toEqual([
      `d${D('2027-01-20')}`,
      ...hoursRange(H('2027-01-20T10'), H('2027-01-20T23')),
    ]);
    expect(plan.precision).toBe('day');
    // The whole straddling day is exact: not widened.
    const whole = planReads({
      startHour: H('2027-01-20T00'),
      endHour: H('2027-01-20T23'),
      compactedThrough: H('2027-01-20T15'),
      horizons,
    });
    expect(brief(whole.reads)).toEqual([
      `d${D('2027-01-20')}`,
      ...hoursRange(H('2027-01-20T16'), H('2027-01-20T23')),
    ]);
    expect(whole.precision).toBe('hour');
  });

  it('groupBy=hour past the horizon: the day counts once, in its first slice, without the hours shown on their own', () => {
    const plan = planReads({
      startHour: H('2027-01-19T22'),
      endHour: H('2027-01-20T11'),
      granularity: 'hour',
      compactedThrough: H('2027-01-25T00'),
      horizons,
    });
    const at = (iso: string) => Date.parse(`${iso}:00:00Z`);
    expect(plan.precision).toBe('day');
    expect(plan.reads).toEqual([
      { res: 'd', index: D('2027-01-19'), slice: at('2027-01-19T22') },
      { res: 'd', index: D('2027-01-20'), slice: at('2027-01-20T00') },
      { res: 'h', index: H('2027-01-20T10'), slice: at('2027-01-20T00'), subtract: true },
      { res: 'h', index: H('2027-01-20T11'), slice: at('2027-01-20T00'), subtract: true },
      { res: 'h', index: H('2027-01-20T10'), slice: at('2027-01-20T10') },
      { res: 'h', index: H('2027-01-20T11'), slice: at('2027-01-20T11') },
    ]);
  });

  it('groupBy=day across the day horizon: the month once, minus the days shown on their own', () => {
    const hz: Horizons = { hour: H('2027-01-20T10'), day: D('2026-05-25'), month: M('2020-01') };
    const plan = planReads({
      startHour: H('2026-05-20T00'),
      endHour: H('2026-05-27T23'),
      granularity: 'day',
      compactedThrough: H('2027-01-25T00'),
      horizons: hz,
    });
    const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
    expect(plan.precision).toBe('month');
    expect(plan.reads).toEqual([
      { res: 'm', index: M('2026-05'), slice: day('2026-05-20') },
      ...['25', '26', '27'].map((n) => ({
        res: 'd',
        index: D(`2026-05-${n}`),
        slice: day('2026-05-20'),
        subtract: true,
      })),
      ...['25', '26', '27'].map((n) => ({ res: 'd', index: D(`2026-05-${n}`), slice: day(`2026-05-${n}`) })),
    ]);
  });

  it('past the day horizon too: the month bucket, precision month', () => {
    const plan = planReads({
      startHour: H('2026-05-20T05'),
      endHour: H('2026-06-02T23'),
      compactedThrough: H('2027-01-25T00'),
      horizons,
    });
    expect(brief(plan.reads)).toEqual([`m${M('2026-05')}`, `d${D('2026-06-01')}`, `d${D('2026-06-02')}`]);
    expect(plan.precision).toBe('month');
  });

  it('past every horizon: nothing to read', () => {
    const plan = planReads({
      startHour: H('2019-05-20T05'),
      endHour: H('2019-06-02T23'),
      compactedThrough: H('2027-01-25T00'),
      horizons,
    });
    expect(plan).toEqual({ reads: [], precision: 'hour' });
  });
});

// ---- Property: the plan counts every hour where the oracle's retention model shows it, once. ----

/** Hours whose counts a bucket read contributes. */
function stored(read: BucketRead, cmp: number | null): number[] {
  if (read.res !== 'h' && read.res !== 'd' && read.res !== 'm')
    throw new Error(`planReads reads no ${read.res} bucket here`);
  if (read.res === 'h') return [read.index];
  const [first, last] = hoursOfBucket(read.res, read.index);
  const out: number[] = [];
  for (let h = first; h <= last; h++) if (inRollups(h, cmp)) out.push(h);
  return out;
}

interface Case {
  input: PlanInput;
  now: number;
  retention: Retention;
}

/** The first violation of the plan against the oracle's model, or undefined. */
function violation({ input, now, retention }: Case): string | undefined {
  const plan = planReads(input);
  const { startHour: a, endHour: b, granularity: g, compactedThrough: cmp, horizons: hz } = input;
  const model = retentionModel(now, retention, { startHour: a, endHour: b });
  const sliceOf = (h: number) => (g ? sliceStartOfHour(h, g) : null);

  // counts[slice][hour] = sum of the signs of the reads of that slice holding the hour
  const counts = new Map<number | null, Map<number, number>>();
  const seen = new Set<string>();
  const minIndex = { h: hz.hour, d: hz.day, m: hz.month };
  for (const read of plan.reads) {
    const id = `${read.slice}|${read.res}${read.index}|${read.subtract ?? false}`;
    if (seen.has(id)) return `read twice: ${id}`;
    seen.add(id);
    // An hour bucket past the hour horizon exists only while the hour is not compacted.
    if (read.res !== 'h' && read.res !== 'd' && read.res !== 'm') return `${read.res} ${read.index} read`;
    const kept = read.res === 'h' ? inHourBucket(read.index, cmp, hz) : read.index >= minIndex[read.res];
    if (!kept) return `${read.res}${read.index} is past retention`;
    if (g && read.slice !== sliceOf(hourOf(read.slice!))) return `slice ${read.slice} is not a slice start`;
    const bySlice = counts.get(read.slice) ?? new Map<number, number>();
    counts.set(read.slice, bySlice);
    for (const h of stored(read, cmp)) bySlice.set(h, (bySlice.get(h) ?? 0) + (read.subtract ? -1 : 1));
  }
  const [windowStart] = hoursOfMonth(monthOfHour(a));
  const [, windowEnd] = hoursOfMonth(monthOfHour(b));
  const expected = new Map<number, number | null>(); // hour -> slice
  for (let h = windowStart; h <= windowEnd; h++) {
    const answer = model.answer(h);
    if (answer) expected.set(h, sliceOf(answer.hour));
  }
  for (const [slice, hours] of counts) {
    for (const [h, n] of hours) {
      const want = expected.has(h) && expected.get(h) === slice ? 1 : 0;
      if (n !== want) return `slice ${slice}: hour ${h} counted ${n} times, expected ${want}`;
    }
  }
  for (const [h, slice] of expected) {
    if (counts.get(slice)?.get(h) !== 1) return `hour ${h} missing from slice ${slice}`;
  }
  if (plan.precision !== model.precision(g, a))
    return `precision ${plan.precision}, oracle ${model.precision(g, a)}`;
  if (plan.precision === 'hour') {
    // Not widened: exactly the requested hours that are still kept somewhere, each in its own slice.
    for (const [h, slice] of expected) if (h < a || h > b || slice !== sliceOf(h)) return `hour ${h} widened`;
  }
  return undefined;
}

const NOW = Date.parse('2028-03-01T10:20:00Z'); // leap day, month and year boundaries within reach
const HOUR = 3_600_000;
const cases = (maxSpan: number) =>
  fc
    .record({
      nowOffset: fc.integer({ min: -24 * 400, max: 24 * 400 }),
      hourRet: fc.integer({ min: 1, max: 24 * 70 }),
      dayRet: fc.integer({ min: 1, max: 120 }),
      monthRet: fc.integer({ min: 1, max: 400 }),
      back: fc.integer({ min: -30, max: 24 * 200 }),
      span: fc.integer({ min: 0, max: maxSpan }),
      granularity: fc.constantFrom<HourGranularity | undefined>(undefined, 'hour', 'day', 'month'),
      lag: fc.option(fc.integer({ min: -24 * 3, max: 24 * 100 }), { nil: null }),
    })
    .map(({ nowOffset, hourRet, dayRet, monthRet, back, span, granularity, lag }): Case => {
      const now = NOW + nowOffset * HOUR + 17_000;
      const retention = { hourMs: hourRet * HOUR, dayMs: dayRet * DAY_MS, monthMs: monthRet * DAY_MS };
      const nowHour = hourOf(now);
      const startHour = nowHour - back;
      return {
        now,
        retention,
        input: {
          startHour,
          endHour: startHour + (granularity === 'hour' ? span % 500 : span),
          ...(granularity ? { granularity } : {}),
          compactedThrough: lag === null ? null : nowHour - 1 - lag,
          horizons: horizonsAt(now, retention),
        },
      };
    });

describe('planReads: property (against the oracle retention model)', () => {
  it('counts every hour exactly where the oracle shows it, with the oracle precision', () => {
    fc.assert(
      fc.property(cases(24 * 100), (c) => {
        expect(violation(c)).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });

  it('realistic retention (35 days / 400 days / 5 years) over ranges of up to 2 years', () => {
    const retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
    const realistic = fc
      .record({
        now: fc.integer({ min: Date.parse('2027-06-01T00:00:00Z'), max: Date.parse('2029-06-01T00:00:00Z') }),
        back: fc.integer({ min: 0, max: 24 * 800 }),
        span: fc.integer({ min: 0, max: 24 * 730 }),
        granularity: fc.constantFrom<HourGranularity | undefined>(undefined, 'day', 'month'),
        lag: fc.option(fc.integer({ min: 0, max: 24 * 40 }), { nil: null }),
      })
      .map(({ now, back, span, granularity, lag }): Case => {
        const nowHour = hourOf(now);
        return {
          now,
          retention,
          input: {
            startHour: nowHour - back,
            endHour: Math.min(nowHour, nowHour - back + span),
            ...(granularity ? { granularity } : {}),
            compactedThrough: lag === null ? null : nowHour - 1 - lag,
            horizons: horizonsAt(now, retention),
          },
        };
      });
    fc.assert(
      fc.property(realistic, (c) => {
        expect(violation(c)).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it('hoursOfDay/hoursOfMonth partition the timeline (sanity of the arithmetic the planner uses)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200_000 }), (d) => {
        expect(hoursOfDay(d + 1)[0]).toBe(hoursOfDay(d)[1] + 1);
        const m = monthOfHour(d * 24);
        expect(hoursOfMonth(m + 1)[0]).toBe(hoursOfMonth(m)[1] + 1);
      }),
    );
  });
});
