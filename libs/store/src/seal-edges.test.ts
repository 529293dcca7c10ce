// sealableBuckets (seal.ts) and billing zones' edges: an edge is sealable once its UTC day's last hour (its dirty
// score) is closed, as an hour is; before, live events may still write it.
import { describe, expect, it } from 'vitest';
import { lastHourOf, minuteOf } from '@va/core';
import { sealableBuckets, withIdentityKey } from './seal';

describe('sealableBuckets: edges of billing zones', () => {
  const index = minuteOf(Date.UTC(2026, 3, 17, 18, 30));
  const score = lastHourOf('z1d', index);

  it('takes an edge whose UTC day is closed, not one still open', () => {
    const dirty = [
      { member: `z1d:${index}`, score },
      { member: `z2m:${index}`, score },
      { member: 'h:10', score: 10 },
    ];
    expect(sealableBuckets(dirty, score, 10).map((b) => `${b.res}:${b.index}`)).toEqual([
      'h:10',
      `z1d:${index}`,
      `z2m:${index}`,
    ]);
    expect(sealableBuckets(dirty, score - 1, 10).map((b) => `${b.res}:${b.index}`)).toEqual(['h:10']);
    expect(sealableBuckets(dirty, null, 10)).toEqual([]);
  });

  it('gives an edge the identity × key section, as a day', () => {
    expect(withIdentityKey('z1d')).toBe(true);
    expect(withIdentityKey('h')).toBe(false);
  });
});
