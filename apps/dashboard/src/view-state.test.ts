import { describe, expect, it } from 'vitest';
import {
  DEFAULT_VIEW,
  effectiveGranularity,
  formatHash,
  parseHash,
  splitList,
  type ViewState,
} from './view-state';

describe('view state in the URL hash', () => {
  it('round-trips every filter', () => {
    const view: ViewState = {
      apiId: 'api_1',
      range: '7d',
      granularity: 'day',
      externalId: 'acme corp/ü',
      keyIds: ['key_1', 'key_2'],
      tags: ['path=/v1', 'region:eu'],
      refresh: 5,
    };
    const hash = formatHash(view);
    expect(hash).toMatch(/^#apiId=api_1&range=7d&granularity=day&externalId=acme/);
    expect(parseHash(hash)).toEqual(view);
  });

  it('leaves defaults out and reads an empty hash as the defaults', () => {
    expect(formatHash(DEFAULT_VIEW)).toBe('');
    expect(formatHash({ ...DEFAULT_VIEW, apiId: 'a' })).toBe('#apiId=a');
    expect(parseHash('')).toEqual(DEFAULT_VIEW);
  });

  it('falls back on unknown values and splits lists like the API', () => {
    const view = parseHash('#range=2y&granularity=week&refresh=1&keyId=a,b&keyId=b&keyId=&tag=%20x%20');
    expect(view).toMatchObject({
      range: '24h',
      granularity: 'auto',
      refresh: 15,
      keyIds: ['a', 'b'],
      tags: ['x'],
    });
    expect(splitList([' a, ,b ', 'a'])).toEqual(['a', 'b']);
  });

  it('picks minutes up to 3 hours, and a choice of minutes only there', () => {
    expect(effectiveGranularity({ ...DEFAULT_VIEW, range: '1h' })).toBe('minute');
    expect(effectiveGranularity({ ...DEFAULT_VIEW, range: '3h' })).toBe('minute');
    expect(effectiveGranularity({ ...DEFAULT_VIEW, range: '3h', granularity: 'hour' })).toBe('hour');
    expect(effectiveGranularity({ ...DEFAULT_VIEW, range: '24h', granularity: 'minute' })).toBe('hour');
    expect(parseHash('#range=3h&granularity=minute')).toMatchObject({ range: '3h', granularity: 'minute' });
  });

  it('picks slices that keep the bar count readable', () => {
    expect(effectiveGranularity({ ...DEFAULT_VIEW, range: '24h' })).toBe('hour');
    expect(effectiveGranularity({ ...DEFAULT_VIEW, range: '7d' })).toBe('hour');
    expect(effectiveGranularity({ ...DEFAULT_VIEW, range: '30d' })).toBe('day');
    expect(effectiveGranularity({ ...DEFAULT_VIEW, range: '365d' })).toBe('month');
    expect(effectiveGranularity({ ...DEFAULT_VIEW, range: '365d', granularity: 'hour' })).toBe('hour');
  });
});
