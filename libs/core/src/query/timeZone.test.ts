import { DEFAULT_MAX_ROWS } from '@va/contracts';
import { describe, expect, it } from 'vitest';
import { parseQuery } from './parseQuery';
import { checkTimeZone, namesTimeZone, withDefaultTimeZone, zoneNameOf } from './timeZone';

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
      expect(result.errors[0]!.fix).toMatch(/America\/New_York.*default zone/);
    }
  });

  it('takes one value', () => {
    const result = parse('apiId=a&timeZone=UTC&timeZone=UTC');
    expect(!result.ok && result.errors.map((e) => e.location)).toEqual(['query.timeZone']);
  });
});

describe("the API's default zone (docs/api.md#time-zones)", () => {
  it('applies when the query names no timeZone; an explicit one, UTC included, wins', () => {
    expect(namesTimeZone(new URLSearchParams('apiId=a&groupBy=day'))).toBe(false);
    const absent = parse('apiId=a&groupBy=day');
    if (!absent.ok) throw new Error('valid');
    expect(withDefaultTimeZone(absent.query, 'America/New_York').timeZone).toBe('America/New_York');
    // A default of UTC (under any name) leaves the query as it was: it plans exactly as no zone.
    expect(withDefaultTimeZone(absent.query, 'UTC')).toEqual(absent.query);
    expect(withDefaultTimeZone(absent.query, 'Etc/UTC')).toEqual(absent.query);
    expect(withDefaultTimeZone(absent.query, undefined)).toEqual(absent.query);
    for (const given of ['UTC', 'Asia/Kolkata'])
      expect(namesTimeZone(new URLSearchParams(`apiId=a&timeZone=${given}&groupBy=day`))).toBe(true);
  });
});

describe('checkTimeZone: the one check of a zone name', () => {
  it("answers the zone database's spelling, the name as given where the database knows it by another", () => {
    expect(checkTimeZone('america/new_york', '--time-zone')).toEqual({ ok: true, zone: 'America/New_York' });
    // ICU resolves these to legacy ids (Asia/Calcutta, Europe/Kiev): the name chosen is kept.
    expect(checkTimeZone('Asia/Kolkata', '--time-zone')).toEqual({ ok: true, zone: 'Asia/Kolkata' });
    expect(checkTimeZone('Europe/Kyiv', '--time-zone')).toEqual({ ok: true, zone: 'Europe/Kyiv' });
    expect(checkTimeZone('asia/kolkata', '--time-zone')).toEqual({ ok: true, zone: 'asia/kolkata' });
    for (const utc of ['UTC', 'utc', 'Etc/UTC', 'GMT'])
      expect(checkTimeZone(utc, 'x')).toEqual({ ok: true, zone: 'UTC' });
  });

  it('refuses what names no zone, naming the field it was given as', () => {
    for (const zone of ['Mars/Olympus', '', '+05:30', 'x'.repeat(65)]) {
      const check = checkTimeZone(zone, '--time-zone');
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.message).toMatch(/^--time-zone must be an IANA time zone name; got "/);
    }
  });

  it('zoneNameOf names the zone an answer used as checkTimeZone does, UTC when none', () => {
    expect(zoneNameOf(undefined)).toBe('UTC');
    for (const zone of ['america/new_york', 'Asia/Kolkata', 'asia/kolkata', 'GMT'])
      expect(zoneNameOf(zone)).toBe((checkTimeZone(zone, 'x') as { zone: string }).zone);
  });
});
