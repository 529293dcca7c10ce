import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PackedCounts } from './packed-counts';

/** Keys as aggregate.ts packs them: integers below 2^53, many sharing their low or high 32 bits. */
const packedKey = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.integer({ min: 0, max: 2 ** 32 + 40 }),
  fc.integer({ min: 0, max: 40 }).map((k) => k * 2 ** 32),
  fc.maxSafeInteger().map((k) => Math.abs(k)),
);

describe('PackedCounts', () => {
  it('counts like a Map, in the order keys were first added, through growth, and numbers the keys so (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.oneof(packedKey, fc.constantFrom(0, 1, 2 ** 52)), fc.integer({ min: 1, max: 5 })),
          {
            maxLength: 600,
          },
        ),
        (adds) => {
          const table = new PackedCounts();
          const reference = new Map<number, number>();
          for (const [key, n] of adds) {
            if (!reference.has(key)) reference.set(key, 0);
            reference.set(key, reference.get(key)! + n);
            expect(table.add(key, n)).toBe([...reference.keys()].indexOf(key));
          }
          [...reference.keys()].forEach((key, entry) => expect(table.keyAt(entry)).toBe(key));
          const entries: [number, number][] = [];
          table.forEach((key, count) => entries.push([key, count]));
          expect(entries).toEqual([...reference]);
          expect(table.size).toBe(reference.size);
          for (const [key] of adds) expect(table.countOf(key)).toBe(reference.get(key));
          expect(table.countOf(2 ** 53 - 3)).toBe(reference.get(2 ** 53 - 3) ?? 0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps 100,000 keys apart that differ only in their high bits', () => {
    const table = new PackedCounts();
    for (let k = 0; k < 100_000; k++) table.add(k * 2 ** 32, 1);
    for (let k = 0; k < 100_000; k++) expect(table.add(k * 2 ** 32, 1)).toBe(k);
    let sum = 0;
    table.forEach((_key, count) => (sum += count));
    expect([table.size, sum]).toEqual([100_000, 200_000]);
  });
});
