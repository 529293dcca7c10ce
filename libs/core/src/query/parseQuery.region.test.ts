/** parseQuery's region filter and groupBy=region (docs/api.md#filters, #grouping). */
import { DEFAULT_MAX_ROWS } from '@va/contracts';
import { describe, expect, it } from 'vitest';
import { parseQuery } from './parseQuery';

const options = { now: Date.UTC(2026, 2, 2, 10, 30), maxRows: DEFAULT_MAX_ROWS };
const parse = (query: string) => parseQuery(new URLSearchParams(query), options);

describe('parseQuery: region', () => {
  it('reads region as a list like keyId: repeats and commas, empty items and duplicates dropped', () => {
    const result = parse('apiId=a&region=eu-west-1,us&region=&region=eu-west-1&region=ap south');
    expect(result.ok && result.query.regions).toEqual(['eu-west-1', 'us', 'ap south']);
    const absent = parse('apiId=a&region=,');
    expect(absent.ok && absent.query.regions).toBeUndefined();
  });

  it('sets groupBy.region only when grouping by region', () => {
    const grouped = parse('apiId=a&groupBy=region,tags,day');
    expect(grouped.ok && grouped.query.groupBy).toEqual({
      key: false,
      identity: false,
      tag: false,
      tags: true,
      region: true,
      granularity: 'day',
    });
    const plain = parse('apiId=a&groupBy=key');
    expect(plain.ok && 'region' in plain.query.groupBy).toBe(false);
  });

  it('refuses a region over 255 characters at query.region', () => {
    const result = parse(`apiId=a&region=${'r'.repeat(256)}`);
    expect(!result.ok && result.errors.map((e) => e.location)).toEqual(['query.region']);
  });
});
