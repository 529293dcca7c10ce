import { describe, expect, it } from 'vitest';
import { compactJobId } from './jobs';

describe('compactJobId', () => {
  it('is one id per generation and API, without ":" and never an integer', () => {
    expect(compactJobId(1, 'api_1')).toBe('compact-g1-api_1');
    expect(compactJobId(2, 'api:with.colon-x')).toBe('compact-g2-api%3Awith.colon-x');
    expect(compactJobId(1, 'a:b')).not.toBe(compactJobId(1, 'a_b'));
    expect(compactJobId(1, '123')).not.toMatch(/^\d+$/);
  });
});
