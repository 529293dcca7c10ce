import { describe, expect, it } from 'vitest';
import { percentile, round, summarize } from './stats';

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(sorted, 50)).toBe(5);
    expect(percentile(sorted, 90)).toBe(9);
    expect(percentile(sorted, 99)).toBe(10);
    expect(percentile(sorted, 0)).toBe(1);
  });
  it('is NaN without samples', () => {
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('summarize', () => {
  it('sorts a copy and reports mean and max', () => {
    const values = [3, 1, 2];
    expect(summarize(values)).toEqual({ count: 3, mean: 2, p50: 2, p90: 3, p99: 3, max: 3 });
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('round', () => {
  it('keeps more digits for small values', () => {
    expect(round(1.2345)).toBe(1.23);
    expect(round(12.345)).toBe(12.3);
    expect(round(123.45)).toBe(123);
  });
});
