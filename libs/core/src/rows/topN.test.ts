import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstK } from './topN';

describe('firstK', () => {
  it('equals sorting everything and taking k (heap and sort paths)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }),
        fc.nat({ max: 320 }),
        (values, k) => {
          // A total order: value, then index (as buildRows breaks ties by position).
          const compare = (a: number, b: number) => values[a]! - values[b]! || a - b;
          const expected = values
            .map((_, i) => i)
            .sort(compare)
            .slice(0, k);
          expect(firstK(values.length, k, compare)).toEqual(expected);
        },
      ),
    );
  });

  it('handles k = 0 and n = 0', () => {
    expect(firstK(5, 0, (a, b) => a - b)).toEqual([]);
    expect(firstK(0, 5, (a, b) => a - b)).toEqual([]);
  });
});
