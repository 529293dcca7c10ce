import { describe, expect, it } from 'vitest';
import { closedBoundAt, compactJobId } from './jobs';

const H = (iso: string) => Math.floor(Date.parse(iso) / 3_600_000);

describe('closedBoundAt', () => {
  it('is the last hour that ended at least the grace period ago', () => {
    // 10:04 with 5 minutes of grace: 09:00-10:00 ended only 4 minutes ago, so 08:00 is the last.
    expect(closedBoundAt(Date.parse('2027-01-01T10:04:00Z'), 5 * 60_000)).toBe(H('2027-01-01T08:00:00Z'));
    expect(closedBoundAt(Date.parse('2027-01-01T10:05:00Z'), 5 * 60_000)).toBe(H('2027-01-01T09:00:00Z'));
    expect(closedBoundAt(Date.parse('2027-01-01T10:00:00Z'), 0)).toBe(H('2027-01-01T09:00:00Z'));
    expect(closedBoundAt(Date.parse('2027-01-01T09:59:59.999Z'), 0)).toBe(H('2027-01-01T08:00:00Z'));
  });
});

describe('compactJobId', () => {
  it('is one id per generation and API, without ":" and never an integer', () => {
    expect(compactJobId(1, 'api_1')).toBe('compact-g1-api_1');
    expect(compactJobId(2, 'api:with.colon-x')).toBe('compact-g2-api%3Awith.colon-x');
    expect(compactJobId(1, 'a:b')).not.toBe(compactJobId(1, 'a_b'));
    expect(compactJobId(1, '123')).not.toMatch(/^\d+$/);
  });
});
