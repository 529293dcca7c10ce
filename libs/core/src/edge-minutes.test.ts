import { describe, expect, it } from 'vitest';
import { sliceStartOfHourIn } from './calendar';
import { splitEdges, splitsEdge, type EdgePlan } from './edge-minutes';
import { planReads } from './planner';
import { DAY_MS, hourOf, horizonsAt, minuteOf } from './time';

const NOW = Date.UTC(2026, 10, 20, 10, 5);
const FIRST_KEPT = minuteOf(NOW - 48 * 3_600_000);
const hz = horizonsAt(NOW, { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 1830 * DAY_MS });

function plan(zone: string, a: number, b: number, over: Partial<EdgePlan> = {}): EdgePlan {
  return {
    a,
    b,
    hz,
    dataEnd: hourOf(NOW),
    firstMinuteKept: FIRST_KEPT,
    sliceOf: (h) => sliceStartOfHourIn(h, 'day', zone),
    inHourBucket: () => true,
    ...over,
  };
}

const at = (iso: string) => Date.parse(iso);
const minutes = (from: string, count: number) =>
  Array.from({ length: count }, (_, i) => minuteOf(at(from)) + i);

describe('splitEdges: mid-hour slice edges split by minute buckets', () => {
  it('Kolkata (+05:30): the 30 minutes from the edge move from the earlier day to the later', () => {
    const split = splitEdges(
      plan('Asia/Kolkata', hourOf(at('2026-11-19T12:00Z')), hourOf(NOW)),
      'day',
      'Asia/Kolkata',
    );
    expect(split.exact).toBe(true);
    const earlier = at('2026-11-18T18:30Z');
    const later = at('2026-11-19T18:30Z');
    expect(split.reads).toEqual(
      minutes('2026-11-19T18:30Z', 30).flatMap((n) => [
        { res: 'n', index: n, slice: earlier, subtract: true },
        { res: 'n', index: n, slice: later },
      ]),
    );
  });

  it('Kathmandu (+05:45): the hour moves to the later day and its 15 minutes before the edge move back', () => {
    const h = hourOf(at('2026-11-19T18:00Z'));
    const split = splitEdges(plan('Asia/Kathmandu', h - 6, h + 6), 'day', 'Asia/Kathmandu');
    const earlier = at('2026-11-18T18:15Z');
    const later = at('2026-11-19T18:15Z');
    expect(split.exact).toBe(true);
    expect(split.reads).toEqual([
      { res: 'h', index: h, slice: earlier, subtract: true },
      { res: 'h', index: h, slice: later },
      ...minutes('2026-11-19T18:00Z', 15).flatMap((n) => [
        { res: 'n', index: n, slice: later, subtract: true },
        { res: 'n', index: n, slice: earlier },
      ]),
    ]);
    // Without the hour's own bucket: the 45 minutes from the edge instead.
    const noHour = splitEdges(
      plan('Asia/Kathmandu', h - 6, h + 6, { inHourBucket: () => false }),
      'day',
      'Asia/Kathmandu',
    );
    expect(noHour.reads.filter((r) => r.res === 'n')).toHaveLength(90);
    expect(noHour.reads.every((r) => r.res === 'n')).toBe(true);
  });

  it('an edge in the range last hour: the later day is no row, its minutes count nowhere', () => {
    const h = hourOf(at('2026-11-19T18:00Z'));
    const kolkata = splitEdges(plan('Asia/Kolkata', h - 6, h), 'day', 'Asia/Kolkata');
    expect(kolkata.reads).toEqual(
      minutes('2026-11-19T18:30Z', 30).map((n) => ({
        res: 'n',
        index: n,
        slice: at('2026-11-18T18:30Z'),
        subtract: true,
      })),
    );
    const kathmandu = splitEdges(plan('Asia/Kathmandu', h - 6, h), 'day', 'Asia/Kathmandu');
    const earlier = at('2026-11-18T18:15Z');
    expect(kathmandu.reads).toEqual([
      { res: 'h', index: h, slice: earlier, subtract: true },
      ...minutes('2026-11-19T18:00Z', 15).map((n) => ({ res: 'n', index: n, slice: earlier })),
    ]);
  });

  it('an edge whose hour has a minute past the minute retention stays whole: not exact, no reads', () => {
    // The first minute kept is 10:05Z on November 18: the hour 18:00Z of November 17 is older.
    const a = hourOf(at('2026-11-17T12:00Z'));
    const split = splitEdges(plan('Asia/Kolkata', a, hourOf(NOW)), 'day', 'Asia/Kolkata');
    expect(split.exact).toBe(false);
    expect(split.reads.filter((r) => r.slice === at('2026-11-16T18:30Z'))).toEqual([]);
    // Without minute buckets nothing is split.
    const none = splitEdges(
      plan('Asia/Kolkata', a, hourOf(NOW), { firstMinuteKept: undefined }),
      'day',
      'Asia/Kolkata',
    );
    expect(none).toEqual({ reads: [], exact: false });
  });

  it('the hour kept whole is the first one some minute of which is gone', () => {
    expect(splitsEdge(at('2026-11-18T10:30Z'), minuteOf(at('2026-11-18T10:00Z')))).toBe(true);
    expect(splitsEdge(at('2026-11-18T10:30Z'), minuteOf(at('2026-11-18T10:01Z')))).toBe(false);
    expect(splitsEdge(at('2026-11-18T10:30Z'), undefined)).toBe(false);
  });

  it('planReads: the split reads beside the cover, edgesOnHours only for an edge left whole', () => {
    const input = {
      endHour: hourOf(NOW),
      granularity: 'day' as const,
      compactedThrough: hourOf(NOW) - 30,
      horizons: hz,
      dataThroughHour: hourOf(NOW + 300_000),
      timeZone: 'Pacific/Chatham',
    };
    const recent = planReads({ ...input, startHour: hourOf(NOW) - 40, firstMinuteKept: FIRST_KEPT });
    expect(recent.edgesOnHours).toBeUndefined();
    expect(recent.reads.some((r) => r.res === 'n')).toBe(true);
    const older = planReads({ ...input, startHour: hourOf(NOW) - 80, firstMinuteKept: FIRST_KEPT });
    expect(older.edgesOnHours).toBe(false);
    const without = planReads({ ...input, startHour: hourOf(NOW) - 40 });
    expect(without.edgesOnHours).toBe(false);
    expect(without.reads.some((r) => r.res === 'n')).toBe(false);
  });
});
