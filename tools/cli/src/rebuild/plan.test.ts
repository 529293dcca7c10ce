import { describe, expect, it } from 'vitest';
import {
  boundaryOf,
  checkCoverage,
  CLOCK_MARGIN_MS,
  describePlan,
  parseSince,
  retentionWarnings,
  startWatermarks,
  type PartitionSpan,
} from './plan';

const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 22, 12, 0, 0);
const span = (partition: number, low: number, firstTimestamp: number | null = null): PartitionSpan => ({
  topic: 'ev',
  partition,
  low,
  high: low + 100,
  firstTimestamp,
});

describe('parseSince', () => {
  it('takes ISO dates and unix ms, refuses garbage and the future', () => {
    expect(parseSince('2026-03-14T10:00:00Z', now)).toBe(Date.UTC(2026, 2, 14, 10));
    expect(parseSince('1700000000000', now)).toBe(1_700_000_000_000);
    expect(parseSince('last tuesday', now)).toMatch(/neither an ISO date/);
    expect(parseSince(String(now + 1), now)).toMatch(/future/);
  });
});

describe('boundaryOf', () => {
  it('rounds down to the month start, with matching hour, day and month indices', () => {
    const b = boundaryOf(Date.UTC(2026, 2, 14, 10, 30));
    expect(b.ms).toBe(Date.UTC(2026, 2, 1));
    expect(b.hour).toBe(b.ms / 3_600_000);
    expect(b.day).toBe(b.ms / DAY);
    expect(b.month).toBe((2026 - 1970) * 12 + 2);
  });
});

describe('checkCoverage', () => {
  it('accepts topics that never lost a record, whatever the store holds', () => {
    expect(checkCoverage({ spans: [span(0, 0), span(1, 0)], oldestCounted: 0, boundary: null, now })).toEqual(
      {
        ok: true,
      },
    );
  });

  it('accepts deleted records when the store no longer counts anything that old', () => {
    const first = now - 400 * DAY;
    const result = checkCoverage({
      spans: [span(0, 50, first), span(1, 0)],
      oldestCounted: first + CLOCK_MARGIN_MS,
      boundary: null,
      now,
    });
    expect(result.ok).toBe(true);
  });

  it('refuses when the store still counts data older than the first retained record, and suggests --since', () => {
    const first = Date.UTC(2026, 5, 10);
    const result = checkCoverage({
      spans: [span(0, 50, first), span(1, 7, first - DAY)],
      oldestCounted: Date.UTC(2026, 3, 1),
      boundary: null,
      now,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.suggestedSince).toBe(Date.UTC(2026, 6, 1));
    expect(result.reasons.join('\n')).toMatch(/ev\/0: records before offset 50 were deleted/);
    expect(result.reasons.join('\n')).toMatch(/--since 2026-07-01T00:00:00.000Z/);
  });

  it('with --since, accepts a boundary after everything deleted records can hold and refuses an earlier one', () => {
    const first = Date.UTC(2026, 5, 10);
    const base = { spans: [span(0, 50, first)], oldestCounted: Date.UTC(2025, 0, 1), now };
    expect(checkCoverage({ ...base, boundary: Date.UTC(2026, 6, 1) }).ok).toBe(true);
    const early = checkCoverage({ ...base, boundary: Date.UTC(2026, 5, 1) });
    expect(early.ok).toBe(false);
  });

  it('treats a partition whose records are all deleted as reaching up to now', () => {
    const result = checkCoverage({
      spans: [{ topic: 'ev', partition: 0, low: 10, high: 10, firstTimestamp: null }],
      oldestCounted: now - DAY,
      boundary: null,
      now,
    });
    expect(result.ok).toBe(false);
  });
});

describe('startWatermarks', () => {
  it('starts at the first record of the time, but never after what the old generation applied', () => {
    expect(
      startWatermarks([
        { topic: 'ev', partition: 0, byTimestamp: 500, sourceWm: 900 },
        { topic: 'ev', partition: 1, byTimestamp: 500, sourceWm: 300 },
        { topic: 'ev', partition: 2, byTimestamp: 0, sourceWm: null },
        { topic: 'ev', partition: 3, byTimestamp: 500, sourceWm: null },
      ]),
    ).toEqual([
      { field: 'ev/0', wm: 499 },
      { field: 'ev/1', wm: 300 },
      { field: 'ev/2', wm: -1 },
      { field: 'ev/3', wm: -1 },
    ]);
  });
});

describe('retentionWarnings', () => {
  it('warns about topics kept shorter than the month retention + 60 days, not about infinite ones', () => {
    const month = 1830 * DAY;
    expect(
      retentionWarnings(
        [
          { topic: 'a', retentionMs: 1890 * DAY },
          { topic: 'b', retentionMs: 7 * DAY },
          { topic: 'c', retentionMs: -1 },
          { topic: 'd', retentionMs: null },
        ],
        month,
      ),
    ).toEqual([expect.stringMatching(/^warning: b keeps records 7 days/)]);
  });
});

describe('describePlan', () => {
  it('says which periods are rebuilt and which are carried over', () => {
    const lines = describePlan({
      source: 3,
      target: 4,
      spans: [span(0, 0), span(1, 0)],
      since: Date.UTC(2026, 2, 14),
      boundary: Date.UTC(2026, 2, 1),
      apis: 5,
    }).join('\n');
    expect(lines).toMatch(/generation 3 into 4/);
    expect(lines).toMatch(/rounds down to its month start/);
    expect(lines).toMatch(/rebuilt: every hour, day and month from 2026-03-01/);
    expect(lines).toMatch(/carried over unchanged from generation 3: every bucket before 2026-03-01/);
  });
});
