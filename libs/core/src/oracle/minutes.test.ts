/** The oracle's minute slices (docs/api.md#minute-slices): UTC minutes, filled, within the minute retention. */
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, hourOf, minuteOf } from '../time';
import type { ParsedQuery } from '../types';
import { NO_GROUPS, testEvent } from '../testing/events';
import { oracle } from './oracle';

const NOW = Date.UTC(2026, 2, 2, 10, 30, 20);
const retention = {
  hourMs: 35 * DAY_MS,
  dayMs: 400 * DAY_MS,
  monthMs: 1830 * DAY_MS,
  minuteMs: 48 * HOUR_MS,
};

/** A groupBy=minute query over [start, end] (ms), as parseQuery makes it. */
function minuteQuery(start: number, end: number, extra: Partial<ParsedQuery> = {}): ParsedQuery {
  return {
    apiId: 'api',
    startHour: hourOf(start),
    endHour: hourOf(end),
    minutes: { start: minuteOf(start), end: minuteOf(end) },
    ...extra,
    groupBy: { ...NO_GROUPS, granularity: 'minute', ...extra.groupBy },
  };
}

const at = (h: number, m: number, s = 0) => Date.UTC(2026, 2, 2, h, m, s);

describe('oracle: minute slices', () => {
  it('counts each event in its UTC minute and fills every minute of the range, nothing outside it', () => {
    const events = [
      testEvent(at(9, 59, 59)), // before the start minute
      testEvent(at(10, 0, 1)),
      testEvent(at(10, 0, 59), { outcome: 'RATE_LIMITED' }),
      testEvent(at(10, 3, 0)),
      testEvent(at(10, 4, 0)), // after the end minute
    ];
    const result = oracle(events, minuteQuery(at(10, 0, 30), at(10, 3, 10)), { now: NOW, maxRows: 100 });
    expect(result.ok && result.rows.map((r) => [r.time, r.valid, r.rateLimited, r.total])).toEqual([
      [at(10, 0), 1, 1, 2],
      [at(10, 1), 0, 0, 0],
      [at(10, 2), 0, 0, 0],
      [at(10, 3), 1, 0, 1],
    ]);
    expect(result.ok && result.precision).toBe('hour');
    expect(result.ok && result.xPrecision).toBeUndefined();
  });

  it('groups and filters as hour slices do, each group with every minute', () => {
    const events = [
      testEvent(at(10, 0), { keyId: 'a', identity: { id: 'i1', externalId: 'x1' }, tags: ['t'] }),
      testEvent(at(10, 1), { keyId: 'b', identity: { id: 'i2', externalId: 'x2' }, tags: ['t', 'u'] }),
      testEvent(at(10, 1), { keyId: 'b', tags: ['u'], region: 'eu' }),
    ];
    const query = minuteQuery(at(10, 0), at(10, 1), {
      tags: ['u'],
      groupBy: { ...NO_GROUPS, key: true, identity: true },
    });
    const result = oracle(events, query, { now: NOW, maxRows: 100 });
    expect(result.ok && result.rows.map((r) => [r.time, r.keyId, r.identity?.id, r.total])).toEqual([
      [at(10, 0), 'b', 'i2', 0],
      [at(10, 1), 'b', 'i2', 1],
    ]);
  });

  it('is the same in every time zone: UTC minutes, no X-Precision', () => {
    const events = [testEvent(at(10, 15)), testEvent(at(10, 45))];
    for (const timeZone of ['Asia/Kathmandu', 'America/St_Johns']) {
      const query = minuteQuery(at(10, 15), at(10, 45), { timeZone });
      const result = oracle(events, query, { now: NOW, maxRows: 100, retention });
      expect(result.ok && result.rows.filter((r) => r.total > 0).map((r) => r.time)).toEqual([
        at(10, 15),
        at(10, 45),
      ]);
      expect(result.ok && result.xPrecision).toBeUndefined();
    }
  });

  it('with retention, counts nothing of a minute past the minute retention (no rollup answers it)', () => {
    const old = NOW - 48 * HOUR_MS - 60_000; // its minute ended more than 48 h ago
    const kept = NOW - 48 * HOUR_MS + 60_000;
    const events = [testEvent(old), testEvent(kept)];
    const query = minuteQuery(old, kept);
    const result = oracle(events, query, { now: NOW, maxRows: 1000, retention });
    expect(result.ok && result.rows.filter((r) => r.total > 0).map((r) => r.time)).toEqual([
      minuteOf(kept) * 60_000,
    ]);
    expect(result.ok && result.precision).toBe('hour');
  });

  it('refuses over the row cap like other slices', () => {
    const result = oracle([testEvent(at(10, 0))], minuteQuery(at(8, 0), at(10, 0)), {
      now: NOW,
      maxRows: 100,
    });
    expect(result.ok).toBe(false);
  });
});
