import { describe, expect, it } from 'vitest';
import { openHoursToSeal } from './open-hours';

describe('openHoursToSeal', () => {
  const policy = { minHashes: 32, everyMs: 60_000 };
  const now = 1_800_000_000_000;

  it('takes an open hour or edge with a large delta never sealed, or sealed at least everyMs ago', () => {
    const hours = [
      { res: 'h' as const, index: 11, hashes: 32, sealedAtMs: now - 60_000 },
      { res: 'h' as const, index: 12, hashes: 200, sealedAtMs: null },
      { res: 'z1d' as const, index: 29_000_000, hashes: 40, sealedAtMs: null },
    ];
    expect(openHoursToSeal(hours, now, policy)).toEqual([
      { res: 'h', index: 11 },
      { res: 'h', index: 12 },
      { res: 'z1d', index: 29_000_000 },
    ]);
  });

  it('leaves an hour with fewer hashes, or sealed less than everyMs ago', () => {
    const hours = [
      { res: 'h' as const, index: 12, hashes: 31, sealedAtMs: null },
      { res: 'h' as const, index: 13, hashes: 500, sealedAtMs: now - 59_999 },
    ];
    expect(openHoursToSeal(hours, now, policy)).toEqual([]);
  });
});
