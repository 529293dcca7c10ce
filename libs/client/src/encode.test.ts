import { describe, expect, it } from 'vitest';
import { encodeQuery, endpointUrl } from './encode';

describe('encodeQuery', () => {
  it('repeats list parameters once per item and keeps scalars as they are', () => {
    const qs = encodeQuery({
      apiId: 'api_1',
      keyId: ['key_a', 'key_b'],
      tag: ['path:/v1/x', 'ü'],
      groupBy: ['key', 'day'],
      start: 0,
      end: 1_700_000_000_000,
      limit: 10,
      orderBy: 'total',
      order: 'desc',
    });
    expect([...qs]).toEqual([
      ['apiId', 'api_1'],
      ['keyId', 'key_a'],
      ['keyId', 'key_b'],
      ['tag', 'path:/v1/x'],
      ['tag', 'ü'],
      ['groupBy', 'key'],
      ['groupBy', 'day'],
      ['start', '0'],
      ['end', '1700000000000'],
      ['limit', '10'],
      ['orderBy', 'total'],
      ['order', 'desc'],
    ]);
    expect(qs.toString()).toBe(
      'apiId=api_1&keyId=key_a&keyId=key_b&tag=path%3A%2Fv1%2Fx&tag=%C3%BC&groupBy=key&groupBy=day' +
        '&start=0&end=1700000000000&limit=10&orderBy=total&order=desc',
    );
  });

  it('leaves out absent parameters, null times and empty lists', () => {
    const qs = encodeQuery({ apiId: 'api_1', start: null, end: undefined, keyId: [], externalId: undefined });
    expect(qs.toString()).toBe('apiId=api_1');
  });

  it('percent-encodes externalIds with reserved characters', () => {
    const qs = encodeQuery({ apiId: 'a', externalId: 'alice+1@example.com & co=x' });
    expect(new URLSearchParams(qs.toString()).get('externalId')).toBe('alice+1@example.com & co=x');
    expect(qs.toString()).toContain('externalId=alice%2B1%40example.com+%26+co%3Dx');
  });
});

describe('endpointUrl', () => {
  it('joins base and path, keeping a path prefix of the base', () => {
    expect(endpointUrl('http://h:1', '/v1/x').href).toBe('http://h:1/v1/x');
    expect(endpointUrl('http://h:1/', '/v1/x').href).toBe('http://h:1/v1/x');
    expect(endpointUrl('https://h/analytics', '/v1/x').href).toBe('https://h/analytics/v1/x');
    expect(endpointUrl(new URL('https://h/analytics/'), 'v1/x', new URLSearchParams('a=1')).href).toBe(
      'https://h/analytics/v1/x?a=1',
    );
  });
});
