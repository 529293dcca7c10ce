/**
 * Billing zones (docs/api.md#billing-zones): the production path in miniature (planReads with the declared
 * zone over a model of the stored buckets and edges, then buildRows) against the oracle. An answer without
 * X-Precision must be the exact answer (the oracle with every event held), at any age the UTC days are
 * kept; an answer that could not be composed from edges is the zone answer of oracle/zones.test.ts.
 */
import { OUTCOMES, type HourGranularity, type VerificationEvent } from '@va/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sliceStartsIn } from '../calendar';
import { firstMonthEdgeDay, hoursOfBucket, inRollups, planReads, type BillingZonePlan } from '../planner';
import { precisionHeader } from '../precision';
import { buildRows } from '../rows/buildRows';
import { DAY_MS, horizonsAt, hourOf, type Resolution, type Retention } from '../time';
import type { ParsedQuery } from '../types';
import { EdgeFinder, parseEdgeResolution } from '../zone-edges';
import { cellsOfReads } from '../testing/read-cells';
import { oracle } from './oracle';

const ZONES = [
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
const FIRST = Date.UTC(2025, 11, 1);
const LAST = Date.UTC(2027, 0, 1);

const event = (time: number, keyId: string, i: number): VerificationEvent => ({
  requestId: `r${time}-${i}`,
  time,
  workspaceId: 'ws',
  apiId: 'api',
  keyId,
  outcome: OUTCOMES[i % OUTCOMES.length]!,
});

interface Case {
  events: VerificationEvent[];
  query: ParsedQuery & { timeZone: string; startHour: number };
  now: number;
  compactedThrough: number | null;
  /** From when the worker counted the zone's edges; before it, an edge holds only some of its events. */
  since: number;
}

/** The answer as the query service computes it, and whether the plan read edges. */
function answer(c: Case) {
  const { query, now, compactedThrough: cmp } = c;
  const billing: BillingZonePlan = {
    n: 1,
    since: c.since,
    firstMonthEdgeDay: firstMonthEdgeDay(now, REALISTIC),
  };
  const plan = planReads({
    startHour: query.startHour,
    endHour: query.endHour,
    granularity: query.groupBy.granularity as HourGranularity,
    compactedThrough: cmp,
    horizons: horizonsAt(now, REALISTIC),
    dataThroughHour: hourOf(now + 5 * 60_000),
    timeZone: query.timeZone,
    billingZone: billing,
  });
  const finder = new EdgeFinder(query.timeZone, 1);
  // What each bucket holds: an hour its events, a rollup its compacted hours', an edge its window's (all
  // of them from `since`, every other one before: a worker that did not know the zone yet).
  const inBucket = (e: VerificationEvent, res: string, index: number, n: number): boolean => {
    if (parseEdgeResolution(res)) {
      const counted = e.time >= c.since || n % 2 === 0;
      return counted && finder.at(e.time).some((edge) => edge.res === res && edge.index === index);
    }
    const [first, last] = hoursOfBucket(res as Resolution, index);
    const h = hourOf(e.time);
    return h >= first && h <= last && (res === 'h' || inRollups(h, cmp));
  };
  const edges = plan.reads.filter((read) => parseEdgeResolution(read.res)).length;
  const cells = cellsOfReads(
    plan.reads,
    (read) => c.events.filter((e, n) => inBucket(e, read.res, read.index, n)),
    query.groupBy.key,
  );
  const g = query.groupBy.granularity!;
  const rows = buildRows(query, cells, {
    slices: sliceStartsIn(query.startHour, query.endHour, g, query.timeZone),
    trimLeading: false,
    maxRows: MAX_ROWS,
  });
  return { rows, header: precisionHeader(plan.precision, plan.edgesOnHours !== false), edges };
}

/** Checks one case; answers whether its plan read edges. */
function check(c: Case): boolean {
  const { rows, header, edges } = answer(c);
  if (!rows.ok) throw new Error('over the row cap');
  if (header === null) {
    const exact = oracle(c.events, c.query, { now: c.now, maxRows: MAX_ROWS });
    expect(exact.ok && rows.rows).toEqual(exact.ok && exact.rows);
  } else {
    expect(edges).toBe(0);
    const zoned = oracle(c.events, c.query, { now: c.now, maxRows: MAX_ROWS, retention: REALISTIC });
    expect(header).toBe(zoned.ok && (zoned.xPrecision ?? null));
    expect(rows.rows).toEqual(zoned.ok && zoned.rows);
  }
  return edges > 0;
}

const arbitraryCase = fc
  .record({
    times: fc.array(fc.integer({ min: FIRST, max: LAST - 1 }), { maxLength: 250 }),
    zone: fc.constantFrom(...ZONES),
    granularity: fc.constantFrom<HourGranularity>('day', 'month'),
    byKey: fc.boolean(),
    now: fc.integer({ min: Date.UTC(2026, 5, 1), max: Date.UTC(2027, 2, 1) }),
    back: fc.integer({ min: 0, max: 24 * 500 }),
    span: fc.integer({ min: 0, max: 24 * 400 }),
    lag: fc.option(fc.integer({ min: 0, max: 24 * 40 }), { nil: null }),
    sinceBack: fc.integer({ min: -24 * 30, max: 24 * 600 }),
    align: fc.boolean(),
  })
  .map((r): Case => {
    const nowHour = hourOf(r.now);
    // Half the ranges start at a UTC midnight and end before one: what a slice past the hour retention
    // needs to be exact (docs/api.md#billing-zones).
    const startHour = r.align ? Math.floor((nowHour - r.back) / 24) * 24 : nowHour - r.back;
    const endHour = Math.min(
      nowHour,
      r.align ? Math.floor((startHour + r.span) / 24) * 24 + 23 : startHour + r.span,
    );
    return {
      events: r.times.filter((t) => t <= r.now).map((t, i) => event(t, `k${i % 2}`, i)),
      now: r.now,
      compactedThrough: r.lag === null ? null : nowHour - 1 - r.lag,
      since: r.now - r.sinceBack * 3_600_000,
      query: {
        apiId: 'api',
        startHour,
        endHour,
        groupBy: { key: r.byKey, identity: false, tag: false, tags: false, granularity: r.granularity },
        timeZone: r.zone,
      },
    };
  });

describe('billing zones: planner and rows against the oracle', () => {
  it('random events over 13 months, 7 zones, day and month slices, retention, compaction and since', () => {
    let byEdges = 0;
    fc.assert(
      fc.property(arbitraryCase, (c) => {
        if (check(c)) byEdges++;
      }),
      { numRuns: 200 },
    );
    expect(byEdges).toBeGreaterThan(25);
  });

  it('Kolkata days 200 days back, past the hour retention and the minute data: exact, no X-Precision', () => {
    const now = Date.UTC(2026, 10, 20, 10, 5);
    const from = now - 200 * DAY_MS;
    const events = Array.from({ length: 6 * 24 * 6 }, (_, i) =>
      event(from + i * 600_000 + 1000, `k${i % 2}`, i),
    );
    const c: Case = {
      events,
      now,
      compactedThrough: hourOf(now) - 2,
      since: Date.UTC(2025, 0, 1),
      query: {
        apiId: 'api',
        // From a UTC midnight: the first row is the rest of a Kolkata day that began at 18:30 the day before.
        startHour: Math.ceil(hourOf(from) / 24) * 24,
        endHour: Math.ceil(hourOf(from) / 24) * 24 + 24 * 5 - 1,
        groupBy: { key: false, identity: false, tag: false, tags: false, granularity: 'day' },
        timeZone: 'Asia/Kolkata',
      },
    };
    expect(check(c)).toBe(true);
    expect(answer(c).header).toBeNull();
    // The same range before the zone was counted: composed from UTC days, as any zone.
    const before = { ...c, since: now };
    expect(check(before)).toBe(false);
    expect(answer(before).header).toBe('day');
  });

  it('the DST days of 2026 in New York and Berlin, a year later: exact from the UTC days and edges', () => {
    const days = [
      ['America/New_York', Date.UTC(2026, 2, 6), 23 * 6, Date.UTC(2026, 2, 8, 5)],
      ['America/New_York', Date.UTC(2026, 9, 30), 25 * 6, Date.UTC(2026, 10, 1, 4)],
      ['Europe/Berlin', Date.UTC(2026, 2, 27), 23 * 6, Date.UTC(2026, 2, 28, 23)],
      ['Europe/Berlin', Date.UTC(2026, 9, 23), 25 * 6, Date.UTC(2026, 9, 24, 22)],
    ] as const;
    for (const [zone, from, count, dstDay] of days) {
      const events = Array.from({ length: 6 * 24 * 5 }, (_, i) => event(from + i * 600_000, 'k1', 0));
      const c: Case = {
        events,
        now: from + 300 * DAY_MS,
        compactedThrough: hourOf(from) + 24 * 200,
        since: from - DAY_MS,
        query: {
          apiId: 'api',
          startHour: hourOf(from),
          endHour: hourOf(from) + 24 * 5 - 1,
          groupBy: { key: false, identity: false, tag: false, tags: false, granularity: 'day' },
          timeZone: zone,
        },
      };
      expect(check(c)).toBe(true);
      const { rows, header } = answer(c);
      expect(header).toBeNull();
      expect(rows.ok && rows.rows.find((row) => row.time === dstDay)?.total).toBe(count);
    }
  });

  it('a +05:45 month in Kathmandu a year back: each event in its own local month', () => {
    const events = [
      event(Date.UTC(2026, 0, 31, 18, 10), 'k1', 0),
      event(Date.UTC(2026, 0, 31, 18, 20), 'k1', 0),
    ];
    const c: Case = {
      events,
      now: Date.UTC(2027, 1, 10),
      compactedThrough: hourOf(Date.UTC(2027, 1, 9)),
      since: Date.UTC(2025, 0, 1),
      query: {
        apiId: 'api',
        startHour: hourOf(Date.UTC(2026, 0, 1)),
        endHour: hourOf(Date.UTC(2026, 1, 9)) - 1,
        groupBy: { key: false, identity: false, tag: false, tags: false, granularity: 'month' },
        timeZone: 'Asia/Kathmandu',
      },
    };
    expect(check(c)).toBe(true);
    const { rows, header } = answer(c);
    expect(header).toBeNull();
    expect(rows.ok && rows.rows.map((r) => [new Date(r.time!).toISOString(), r.total])).toEqual([
      ['2025-12-31T18:15:00.000Z', 1],
      ['2026-01-31T18:15:00.000Z', 1],
    ]);
  });
});
