/** parseQuery's groupBy=minute: the range in minutes, and the minute retention (docs/api.md#minute-slices). */
import { DEFAULT_MAX_ROWS } from '@va/contracts';
import { describe, expect, it } from 'vitest';
import { HOUR_MS, hourOf, minuteOf } from '../time';
import { parseQuery } from './parseQuery';

const NOW = Date.UTC(2026, 2, 2, 10, 30, 15); // 2026-03-02T10:30:15Z
const RETENTION = 48 * HOUR_MS;
const options = { now: NOW, maxRows: DEFAULT_MAX_ROWS, minuteRetentionMs: RETENTION };
const parse = (query: string, opts = options) => parseQuery(new URLSearchParams(query), opts);
/** The first minute the retention keeps at NOW: the one holding NOW - 48 h (10:30 two days before). */
const FIRST_KEPT = Date.UTC(2026, 1, 28, 10, 30);

describe('parseQuery: groupBy=minute', () => {
  it('truncates start and end to their minutes, and keeps their hours', () => {
    const start = Date.UTC(2026, 2, 2, 7, 5, 59, 999);
    const end = Date.UTC(2026, 2, 2, 9, 59, 0, 1);
    const result = parse(`apiId=a&groupBy=minute&start=${start}&end=${end}`);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.query).toMatchObject({
      startHour: hourOf(start),
      endHour: hourOf(end),
      minutes: { start: minuteOf(start), end: minuteOf(end) },
      groupBy: { granularity: 'minute' },
    });
  });

  it("ends at now's minute without end, and combines with every dimension and filter", () => {
    const result = parse(
      `apiId=a&groupBy=minute,key,identity,tags,region&keyId=k&externalId=x&tag=t&region=r&start=${NOW - HOUR_MS}`,
    );
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.query.minutes).toEqual({ start: minuteOf(NOW - HOUR_MS), end: minuteOf(NOW) });
  });

  it('sets no minutes for other granularities', () => {
    const result = parse(`apiId=a&groupBy=hour&start=${NOW - HOUR_MS}`);
    expect(result.ok && 'minutes' in result.query).toBe(false);
  });

  it('accepts a start in the first minute kept, and refuses one a millisecond before, naming the retention', () => {
    expect(parse(`apiId=a&groupBy=minute&start=${FIRST_KEPT}`).ok).toBe(true);
    const result = parse(`apiId=a&groupBy=minute&start=${FIRST_KEPT - 1}`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      {
        location: 'query.start',
        message: `start (${FIRST_KEPT - 1}) is before the minute retention: minute slices are kept for 48 hours (the minute retention), from ${FIRST_KEPT} on`,
        fix: `send a start from ${FIRST_KEPT} on (unix ms), or group by hour, day or month`,
      },
    ]);
  });

  it('needs a start', () => {
    for (const query of ['apiId=a&groupBy=minute', 'apiId=a&groupBy=minute&start=null']) {
      const result = parse(query);
      expect(!result.ok && result.errors).toEqual([
        expect.objectContaining({
          location: 'query.start',
          message: 'groupBy=minute needs a start: minute slices are kept for 48 hours (the minute retention)',
        }),
      ]);
    }
  });

  it('follows the configured retention', () => {
    const short = { ...options, minuteRetentionMs: 90 * 60_000 };
    const error = parse(`apiId=a&groupBy=minute&start=${NOW - 2 * HOUR_MS}`, short);
    expect(!error.ok && error.errors[0]!.message).toContain('kept for 90 minutes');
  });

  it('refuses every minute query when the retention is 0: the worker then counts no minute, not even the current one', () => {
    const none = { ...options, minuteRetentionMs: 0 };
    for (const start of [`&start=${NOW - 60_000}`, `&start=${NOW}`, '']) {
      const result = parse(`apiId=a&groupBy=minute${start}`, none);
      expect(!result.ok && result.errors).toEqual([
        {
          location: 'query.start',
          message: 'minute slices are not kept on this server (its minute retention is 0)',
          fix: 'group by hour, day or month',
        },
      ]);
    }
    expect(parse(`apiId=a&groupBy=hour&start=${NOW}`, none).ok).toBe(true);
  });

  it('reports one error per failure: two granularities, a bad start, start after end', () => {
    const two = parse(`apiId=a&groupBy=minute,hour&start=${NOW}`);
    expect(!two.ok && two.errors.map((e) => [e.location, e.message])).toEqual([
      ['query.groupBy', 'groupBy takes at most one of minute, hour, day, month; got minute, hour'],
    ]);
    const bad = parse('apiId=a&groupBy=minute&start=soon');
    expect(!bad.ok && bad.errors.map((e) => e.location)).toEqual(['query.start']);
    const after = parse(`apiId=a&groupBy=minute&start=${NOW}&end=${NOW - 60_000}`);
    expect(!after.ok && after.errors.map((e) => e.location)).toEqual(['query.start']);
  });

  it('takes orderBy=time with minute slices', () => {
    expect(parse(`apiId=a&groupBy=minute&orderBy=time&start=${NOW}`).ok).toBe(true);
  });
});
