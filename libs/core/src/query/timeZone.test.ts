import { DEFAULT_MAX_ROWS } from '@va/contracts';
import { describe, expect, it } from 'vitest';
import { parseQuery } from './parseQuery';

const NOW = Date.UTC(2026, 2, 2, 10, 30);
const parse = (query: string) =>
  parseQuery(new URLSearchParams(query), { now: NOW, maxRows: DEFAULT_MAX_ROWS });

describe('parseQuery: timeZone (docs/api.md#time-zones)', () => {
  it('is absent by default and for UTC under any name', () => {
    for (const q of ['', '&timeZone=UTC', '&timeZone=utc', '&timeZone=Etc/UTC', '&timeZone=GMT']) {
      const result = parse(`apiId=a${q}`);
      expect(result.ok && result.query.timeZone).toBe(undefined);
    }
  });

  it('keeps an IANA zone as given', () => {
    for (const zone of ['America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'america/new_york']) {
      const result = parse(`apiId=a&groupBy=day&timeZone=${encodeURIComponent(zone)}`);
      expect(result.ok && result.query.timeZone).toBe(zone);
    }
  });

  it('refuses what names no zone, at query.timeZone, with a fix', () => {
    for (const zone of ['Mars/Olympus', '', '+05:30', 'Z', 'x'.repeat(65), 'America/New_York ']) {
      const result = parse(`apiId=a&timeZone=${encodeURIComponent(zone)}`);
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatchObject({ location: 'query.timeZone' });
      expect(result.errors[0]!.message).toMatch(/^timeZone must be an IANA time zone name; got "/);
      expect(result.errors[0]!.fix).toMatch(/America\/New_York/);
    }
  });

  it('takes one value', () => {
    const result = parse('apiId=a&timeZone=UTC&timeZone=UTC');
    expect(!result.ok && result.errors.map((e) => e.location)).toEqual(['query.timeZone']);
  });
});
