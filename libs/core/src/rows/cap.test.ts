import { describe, expect, it } from 'vitest';
import { overRowCap, rowCapError } from './cap';

describe('the row cap', () => {
  it('refuses more rows than one response may hold, after the limit', () => {
    expect(overRowCap(101, undefined, 100)).toBe(true);
    expect(overRowCap(101, 100, 100)).toBe(false);
  });

  it('#42 item 5: one builder spells the refusal, exact or as a lower bound', () => {
    expect(rowCapError(120, 100).message).toBe(
      'the query gives 120 rows, more than the 100 one response may hold',
    );
    expect(rowCapError(120, 100, { lowerBound: true })).toEqual({
      location: 'query.limit',
      message: 'the query gives at least 120 rows, more than the 100 one response may hold',
      fix: 'narrow the range or set a limit',
    });
  });
});
