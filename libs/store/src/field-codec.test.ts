import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTCOME_COUNT } from '@va/contracts';
import { decodeField, encodeField, MalformedFieldError, type CounterField } from './field-codec';
import { CodeCounts, FieldSums, addCount, type CodeSelection } from './read-fields';
import { addDeltaHash, emptySectionRows } from './section/delta-rows';

const CUBES = ['t', 'k', 'i', 's', 'f'] as const;
const code = fc.integer({ min: 0, max: 36 ** 10 - 1 });
const outcome = fc.integer({ min: 0, max: OUTCOME_COUNT - 1 });
const codesOf = { t: 0, k: 1, i: 1, s: 1, f: 2 } as const;
const fieldOf = fc
  .constantFrom(...CUBES)
  .chain((cube) =>
    fc
      .record({ outcome, codes: fc.array(code, { minLength: codesOf[cube], maxLength: codesOf[cube] }) })
      .map((field): [string, CounterField] => [cube, field]),
  );

describe('field-codec', () => {
  it('decodes what it encodes, for every cube, code and outcome', () => {
    fc.assert(
      fc.property(fieldOf, ([cube, field]) => {
        expect(decodeField(cube, encodeField(cube, field))).toEqual(field);
      }),
      { numRuns: 2_000 },
    );
  });

  it('accepts only the canonical spelling: any string decodes to what encodes back to it, or throws', () => {
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'0123456789az.:-_ A'), maxLength: 14 }),
      fc.string({ maxLength: 14 }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...CUBES), text, (cube, field) => {
        let decoded: CounterField;
        try {
          decoded = decodeField(cube, field);
        } catch (error) {
          expect(error).toBeInstanceOf(MalformedFieldError);
          return;
        }
        expect(encodeField(cube, decoded)).toBe(field);
      }),
      { numRuns: 5_000 },
    );
  });

  it('spells the layout keys.ts documents', () => {
    expect(encodeField('t', { outcome: 3, codes: [] })).toBe('3');
    expect(encodeField('k', { outcome: 0, codes: [71] })).toBe('1z:0');
    expect(encodeField('f', { outcome: 8, codes: [36, 0] })).toBe('10.0:8');
  });
});

describe('#42 item 2: one policy for a malformed field', () => {
  const malformed: [cube: 't' | 'k' | 'i' | 's' | 'f', field: string][] = [
    ['t', '12'],
    ['t', '9'],
    ['k', '01:3'],
    ['k', '1:9'],
    ['i', 'A:1'],
    ['s', '3'],
    ['f', '1:2'],
    ['f', '1.:2'],
  ];
  const selection = (cube: CodeSelection['cube']): CodeSelection => ({
    cube,
    keys: null,
    identities: null,
    sets: null,
    group: { key: true, identity: true, set: true },
  });

  it.each(malformed)('cube %s field %j: the reader throws, as the sealer does', (cube, field) => {
    expect(() => addDeltaHash(emptySectionRows(), cube === 'f' ? 'f:_' : cube, { [field]: '1' })).toThrow();
    expect(() => addCount(new CodeCounts().slice(null), selection(cube), '_', field, 1)).toThrow(
      MalformedFieldError,
    );
    const sums = new FieldSums(cube);
    sums.addText(`${field} 1`, 1);
    expect(() => sums.addTo(new CodeCounts().slice(null), selection(cube), '_')).toThrow(MalformedFieldError);
  });
});
