/**
 * Time zones (docs/api.md#time-zones): the production path in miniature (planReads over a model of
 * the stored buckets, then buildRows) against the oracle, which reads the local calendar straight
 * from the events. Whole-hour zones, DST included, answer exactly (no X-Precision) wherever the
 * hours are kept; a zone whose offset is not a whole hour splits an hour holding a slice edge by its
 * minute buckets while they keep all its minutes, and past that answers as if the hour's events
 * happened at its start, and says so (X-Precision: hour).
 */
import { OUTCOMES, type HourGranularity, type VerificationEvent } from '@va/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sliceStartsIn } from '../calendar';
import { hoursOfBucket, inRollups, planReads, type ReadPlan } from '../planner';
import { precisionHeader } from '../precision';
import { buildRows } from '../rows/buildRows';
import {
  DAY_MS,
  firstMinuteKept,
  HOUR_MS,
  horizonsAt,
  hourOf,
  keptAt,
  minuteOf,
  type Retention,
} from '../time';
import type { ParsedQuery } from '../types';
import { cellsOfReads } from '../testing/read-cells';
import { oracle } from './oracle';

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/St_Johns',
];
const MAX_ROWS = 100_000;
const REALISTIC: Retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
const EVERY_HOUR: Retention = { hourMs: 3650 * DAY_MS, dayMs: 3650 * DAY_MS, monthMs: 3650 * DAY_MS };
/** REALISTIC with the minute buckets of the last 48 hours. */
const WITH_MINUTES: Retention = { ...REALISTIC, minuteMs: 48 * HOUR_MS };
const FIRST = Date.UTC(2025, 11, 1);
const LAST = Date.UTC(2027, 0, 1); // 13 months of events

const event = (time: number, keyId: string, outcome: (typeof OUTCOMES)[number]): VerificationEvent => ({
  requestId: `r${time}`,
  time,
  workspaceId: 'ws',
  apiId: 'api',
  keyId,
  outcome,
});

interface Case {
  events: VerificationEvent[];
  query: ParsedQuery;
  now: number;
  retention: Retention;
  compactedThrough: number | null;
}

/** The answer as the query service computes it: a plan, the buckets' counts, buildRows. */
function answer(c: Case) {
  const { query, now, retention, compactedThrough: cmp } = c;
  const plan: ReadPlan = planReads({
    startHour: query.startHour!,
    endHour: query.endHour,
    granularity: query.groupBy.granularity as HourGranularity,
    compactedThrough: cmp,
    horizons: horizonsAt(now, retention),
    dataThroughHour: hourOf(now + 5 * 60_000),
    ...(query.timeZone !== undefined && { timeZone: query.timeZone }),
    ...(retention.minuteMs && { firstMinuteKept: firstMinuteKept(now, retention) }),
  });
  // A bucket holds the events of its hours: an hour bucket its hour, a rollup its compacted hours.
  const byHour = new Map<number, VerificationEvent[]>();
  for (const e of c.events) byHour.set(hourOf(e.time), [...(byHour.get(hourOf(e.time)) ?? []), e]);
  const cells = cellsOfReads(
    plan.reads,
    function* (read) {
      // A minute bucket holds the events of its minute while kept (the worker counts them at their time).
      if (read.res !== 'n' && read.res !== 'h' && read.res !== 'd' && read.res !== 'm')
        throw new Error('no billing zone here');
      if (read.res === 'n') {
        if (!keptAt('n', read.index, retention, now)) return;
        yield* (byHour.get(Math.floor(read.index / 60)) ?? []).filter((e) => minuteOf(e.time) === read.index);
        return;
      }
      const [first, last] = hoursOfBucket(read.res, read.index);
      for (let h = first; h <= last; h++) {
        if (read.res === 'h' || inRollups(h, cmp)) yield* byHour.get(h) ?? [];
      }
    },
    query.groupBy.key,
  );
  const g = query.groupBy.granularity!;
  const rows = buildRows(query, cells, {
    slices: sliceStartsIn(query.startHour!, query.endHour, g, query.timeZone),
    trimLeading: false,
    maxRows: MAX_ROWS,
  });
  const header = precisionHeader(plan.precision, plan.edgesOnHours !== false);
  return { rows, header };
}

/** Every event moved to the start of its UTC hour: what an answer exact to the hour counts. */
const floored = (events: VerificationEvent[]) =>
  events.map((e) => ({ ...e, time: Math.floor(e.time / HOUR_MS) * HOUR_MS }));

function check(c: Case): void {
  const { rows, header } = answer(c);
  const options = { now: c.now, maxRows: MAX_ROWS, retention: c.retention };
  const expected = oracle(c.events, c.query, options);
  const toTheHour = oracle(floored(c.events), c.query, options);
  if (!expected.ok || !toTheHour.ok || !rows.ok) throw new Error('over the row cap');
  expect(header).toBe(expected.xPrecision ?? null);
  expect(rows.rows).toEqual(expected.rows);
  // Without minute buckets, whatever the zone: exact to the UTC hour.
  if (!c.retention.minuteMs) expect(rows.rows).toEqual(toTheHour.rows);
}

/** What both arbitraries draw besides the events: the zone, slices, now, the range and the compaction lag. */
interface Draw {
  zone: string;
  granularity: HourGranularity;
  byKey: boolean;
  now: number;
  back: number;
  span: number;
  lag: number | null;
}

/** A case of `events` at the draw's now: its range starts `back` hours before now, spans `span` hours at most. */
function caseOf(r: Draw, events: VerificationEvent[], retention: Retention): Case {
  const nowHour = hourOf(r.now);
  const startHour = nowHour - r.back;
  return {
    events,
    now: r.now,
    retention,
    compactedThrough: r.lag === null ? null : nowHour - 1 - r.lag,
    query: {
      apiId: 'api',
      startHour,
      endHour: Math.min(nowHour, startHour + r.span),
      groupBy: { key: r.byKey, identity: false, tag: false, tags: false, granularity: r.granularity },
      ...(r.zone !== 'UTC' && { timeZone: r.zone }),
    },
  };
}

const arbitraryCase = fc
  .record({
    times: fc.array(fc.integer({ min: FIRST, max: LAST - 1 }), { maxLength: 250 }),
    keys: fc.array(fc.constantFrom('k1', 'k2'), { minLength: 250, maxLength: 250 }),
    zone: fc.constantFrom(...ZONES),
    granularity: fc.constantFrom<HourGranularity>('day', 'month'),
    byKey: fc.boolean(),
    now: fc.integer({ min: Date.UTC(2026, 5, 1), max: Date.UTC(2027, 2, 1) }),
    realistic: fc.boolean(),
    back: fc.integer({ min: 0, max: 24 * 400 }),
    span: fc.integer({ min: 0, max: 24 * 400 }),
    lag: fc.option(fc.integer({ min: 0, max: 24 * 40 }), { nil: null }),
  })
  .map((r): Case => {
    const events = r.times
      .filter((t) => t <= r.now)
      .map((t, i) => event(t, r.keys[i]!, OUTCOMES[t % OUTCOMES.length]!));
    return caseOf(r, events, r.realistic ? REALISTIC : EVERY_HOUR);
  });

/** Events of the last 4 days (and a little ahead), ranges around now: edges inside and past the minute retention. */
const recentCase = fc
  .record({
    offsets: fc.array(fc.integer({ min: -4 * 24 * 60, max: 4 }), { maxLength: 300 }),
    zone: fc.constantFrom(
      'Asia/Kolkata',
      'Asia/Kathmandu',
      'America/St_Johns',
      'Pacific/Chatham',
      'Australia/Lord_Howe',
      'America/New_York',
    ),
    granularity: fc.constantFrom<HourGranularity>('day', 'month'),
    byKey: fc.boolean(),
    now: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
    back: fc.integer({ min: 0, max: 24 * 4 }),
    span: fc.integer({ min: 0, max: 24 * 4 }),
    lag: fc.option(fc.integer({ min: 0, max: 24 * 3 }), { nil: null }),
  })
  .map((r): Case => {
    const events = r.offsets.map((o, i) =>
      event(r.now + o * 60_000 + (i % 60) * 1000, `k${i % 2}`, OUTCOMES[i % 9]!),
    );
    return caseOf(r, events, WITH_MINUTES);
  });

describe('time zones: planner and rows against the oracle', () => {
  it('random events over 13 months, 8 zones, day and month slices, retention and compaction', () => {
    fc.assert(fc.property(arbitraryCase, check), { numRuns: 100 });
  });

  it('random events of the last 4 days with minute buckets: edges within 48 hours split exactly', () => {
    fc.assert(fc.property(recentCase, check), { numRuns: 300 });
  });

  it('Kolkata days every 10 minutes: exact within the minute retention, X-Precision: hour past it', () => {
    const now = Date.UTC(2026, 10, 20, 10, 5);
    const events = Array.from({ length: 6 * 24 * 5 }, (_, i) =>
      event(Date.UTC(2026, 10, 15) + i * 600_000 + 1000, `k${i % 2}`, 'VALID'),
    ).filter((e) => e.time <= now);
    const day = (startHour: number, endHour: number): Case => ({
      events,
      now,
      retention: WITH_MINUTES,
      compactedThrough: hourOf(now) - 30,
      query: {
        apiId: 'api',
        startHour,
        endHour,
        groupBy: { key: false, identity: false, tag: false, tags: false, granularity: 'day' },
        timeZone: 'Asia/Kolkata',
      },
    });
    // Local midnights at 18:30Z on November 18 (within 48 hours: 10:05Z on the 18th is the first minute kept)
    // and November 19: both split; the 144 events of November 19 local count there (the events end at 23:50Z).
    const recent = day(hourOf(Date.UTC(2026, 10, 18, 12)), hourOf(now));
    check(recent);
    const answered = answer(recent);
    expect(answered.header).toBeNull();
    expect(answered.rows.ok && answered.rows.rows.map((r) => r.total)).toEqual([39, 144, 33]);
    // The range's last hour holds the edge: the row of November 19 counts its own instants only.
    const endsInEdge = day(hourOf(Date.UTC(2026, 10, 19, 12)), hourOf(Date.UTC(2026, 10, 19, 18)));
    check(endsInEdge);
    expect(answer(endsInEdge).rows).toEqual({ ok: true, rows: [expect.objectContaining({ total: 39 })] });
    // The local midnight of November 17 (18:30Z) is older than the minute retention: X-Precision: hour.
    const older = day(hourOf(Date.UTC(2026, 10, 17, 12)), hourOf(now));
    check(older);
    expect(answer(older).header).toBe('hour');
  });

  it('the DST days of 2026 in New York (23 and 25 hours) and Berlin, every 10 minutes, exactly', () => {
    const days = [
      ['America/New_York', Date.UTC(2026, 2, 6), 23 * 6, Date.UTC(2026, 2, 8, 5)],
      ['America/New_York', Date.UTC(2026, 9, 30), 25 * 6, Date.UTC(2026, 10, 1, 4)],
      ['Europe/Berlin', Date.UTC(2026, 2, 27), 23 * 6, Date.UTC(2026, 2, 28, 23)],
      ['Europe/Berlin', Date.UTC(2026, 9, 23), 25 * 6, Date.UTC(2026, 9, 24, 22)],
    ] as const;
    for (const [zone, from, count, dstDay] of days) {
      const events = Array.from({ length: 6 * 24 * 5 }, (_, i) => event(from + i * 600_000, 'k1', 'VALID'));
      for (const compactedThrough of [null, hourOf(from) + 40, hourOf(from) + 24 * 30]) {
        const c: Case = {
          events,
          now: from + 10 * DAY_MS,
          retention: REALISTIC,
          compactedThrough,
          query: {
            apiId: 'api',
            startHour: hourOf(from),
            endHour: hourOf(from) + 24 * 5 - 1,
            groupBy: { key: false, identity: false, tag: false, tags: false, granularity: 'day' },
            timeZone: zone,
          },
        };
        check(c);
        const rows = answer(c).rows;
        expect(rows.ok && rows.rows.find((row) => row.time === dstDay)?.total).toBe(count);
      }
    }
  });

  it('a +05:45 month in Kathmandu: X-Precision hour, each count exact to the UTC hour', () => {
    // Events at 18:10Z and 18:20Z on January 31: local 23:55 on the 31st and 00:05 on February 1.
    const events = [
      event(Date.UTC(2026, 0, 31, 18, 10), 'k1', 'VALID'),
      event(Date.UTC(2026, 0, 31, 18, 20), 'k1', 'VALID'),
    ];
    const c: Case = {
      events,
      now: Date.UTC(2026, 1, 10),
      retention: REALISTIC,
      compactedThrough: null,
      query: {
        apiId: 'api',
        startHour: hourOf(Date.UTC(2026, 0, 1)),
        endHour: hourOf(Date.UTC(2026, 1, 9)),
        groupBy: { key: false, identity: false, tag: false, tags: false, granularity: 'month' },
        timeZone: 'Asia/Kathmandu',
      },
    };
    check(c);
    const { rows, header } = answer(c);
    expect(header).toBe('hour');
    // Hour 18Z starts at local 23:45 on January 31: both events count in January.
    expect(rows.ok && rows.rows.map((r) => [new Date(r.time!).toISOString(), r.total])).toEqual([
      ['2025-12-31T18:15:00.000Z', 2],
      ['2026-01-31T18:15:00.000Z', 0],
    ]);
    const exact = oracle(events, c.query, { now: c.now, maxRows: MAX_ROWS });
    expect(exact.ok && exact.rows.map((r) => r.total)).toEqual([1, 1]);
  });
});
