import { describe, expect, it } from 'vitest';
import { caughtUp, doneOf, formatProgress, percentOf, progressRows, totalOf } from './progress';

describe('progressRows', () => {
  const spans = [
    { topic: 'ev', partition: 0, low: 0, high: 101 },
    { topic: 'ev', partition: 1, low: 20, high: 20 },
    { topic: 'ev.backfill', partition: 0, low: 0, high: 50 },
  ];

  it('measures each partition from its start (the --since start, or the earliest offset)', () => {
    const rows = progressRows(spans, [{ field: 'ev.backfill/0', wm: 29 }], [50, -1, 39], [100, 19, 49]);
    expect(rows.map((r) => [r.field, r.start, r.end, doneOf(r), totalOf(r), percentOf(r)])).toEqual([
      ['ev/0', 0, 100, 51, 101, 50],
      ['ev/1', 20, 19, 0, 0, 100],
      ['ev.backfill/0', 30, 49, 10, 20, 50],
    ]);
    expect(caughtUp(rows)).toBe(false);
    expect(caughtUp(progressRows(spans, [], [100, 19, 49], [100, 19, 49]))).toBe(true);
  });

  it('formats a table', () => {
    const lines = formatProgress(progressRows(spans, [], [100, -1, 10], [100, 19, 49]));
    expect(lines[0]).toMatch(/^partition\s+replayed\s+of\s+done\s+wm new\s+wm current$/);
    expect(lines[1]).toMatch(/^ev\/0\s+101\s+101\s+100%\s+100\s+100$/);
  });
});
