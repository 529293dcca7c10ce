import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { code36 } from './keys';

describe('code36', () => {
  it('spells every code in base 36, spelled once or not (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 2 ** 16 + 5 }), fc.integer({ min: 0, max: 2 ** 40 })),
        (code) => {
          expect(code36(code)).toBe(code.toString(36));
          expect(code36(code)).toBe(code.toString(36));
        },
      ),
    );
    for (const code of [0, 35, 36, 2 ** 16 - 1, 2 ** 16]) expect(code36(code)).toBe(code.toString(36));
  });
});
