import { describe, expect, it } from 'vitest';
import { decodeRetireApiGeneration } from './generation-scripts';

describe('decodeRetireApiGeneration', () => {
  it('an API retired: no partition behind', () => {
    expect(decodeRetireApiGeneration(['ok'])).toEqual([]);
  });

  it("a partition g' has no watermark for reads as has: null, not the script's -1", () => {
    expect(decodeRetireApiGeneration(['behind', 2, 'ev/0', '149', '49', 'ev/1', '7', '-1'])).toEqual([
      { field: 'ev/0', needed: 149, has: 49 },
      { field: 'ev/1', needed: 7, has: null },
    ]);
  });

  it('an unknown reply is an error', () => {
    expect(() => decodeRetireApiGeneration(['nope'])).toThrow(/unexpected reply/);
  });
});
