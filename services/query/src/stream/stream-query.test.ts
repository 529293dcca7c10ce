import { describe, expect, it } from 'vitest';
import type { ParsedQuery } from '@va/core';
import { hasOpenEnd, queryAt, streamQuery } from './stream-query';

const HOUR = 3_600_000;
const base: ParsedQuery = {
  apiId: 'api_a',
  endHour: 500_000,
  groupBy: { key: false, identity: false, tag: false, tags: false },
};

describe('the stream key', () => {
  it('is equal for equal queries, whatever the order of their properties', () => {
    const a = streamQuery({ ...base, keyIds: ['k1'], startHour: 10 }, false);
    const b = streamQuery(
      {
        startHour: 10,
        keyIds: ['k1'],
        groupBy: { tags: false, tag: false, identity: false, key: false },
        endHour: 500_000,
        apiId: 'api_a',
      },
      false,
    );
    expect(a.key).toBe(b.key);
  });

  it('differs for every field that changes the answer (a field added later too)', () => {
    const variants: ParsedQuery[] = [
      { ...base, apiId: 'api_b' },
      { ...base, externalId: 'acme' },
      { ...base, keyIds: ['k1'] },
      { ...base, tags: ['t'] },
      { ...base, startHour: 1 },
      { ...base, endHour: 500_001 },
      { ...base, groupBy: { ...base.groupBy, key: true } },
      { ...base, groupBy: { ...base.groupBy, granularity: 'day' } },
      { ...base, limit: 10 },
      { ...base, orderBy: 'total' },
      { ...base, order: 'desc' },
      // A field the key does not know by name.
      { ...base, ...({ someNewFilter: ['x'] } as object) },
    ];
    const keys = new Set([streamQuery(base, false).key, ...variants.map((q) => streamQuery(q, false).key)]);
    expect(keys.size).toBe(variants.length + 1);
  });

  it('leaves the end out of an open-ended query: it follows the clock', () => {
    expect(streamQuery(base, true).key).toBe(streamQuery({ ...base, endHour: 7 }, true).key);
    expect(streamQuery(base, true).key).not.toBe(streamQuery(base, false).key);
    const open = streamQuery(base, true);
    expect(queryAt(open, 900_000 * HOUR + 5).endHour).toBe(900_000);
    expect(queryAt(streamQuery(base, false), 900_000 * HOUR).endHour).toBe(500_000);
  });

  it('reads end= absent, empty or null as open', () => {
    expect(hasOpenEnd(new URLSearchParams('apiId=a'))).toBe(true);
    expect(hasOpenEnd(new URLSearchParams('apiId=a&end='))).toBe(true);
    expect(hasOpenEnd(new URLSearchParams('apiId=a&end=null'))).toBe(true);
    expect(hasOpenEnd(new URLSearchParams('apiId=a&end=5'))).toBe(false);
  });
});
