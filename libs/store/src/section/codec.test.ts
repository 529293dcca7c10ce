import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTCOME_COUNT } from '@va/contracts';
import {
  decodeSection,
  deriveIdentityKey,
  emptySection,
  encodeSection,
  mergeSections,
  NO_IDENTITY,
  rowsOfFirst,
  SECTION_DIMS,
  SectionRows,
  sectionVersion,
  versionBytes,
  type Section,
  type SectionCube,
} from './codec';

const code = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.integer({ min: 0, max: 2 ** 32 - 2 }),
  fc.constant(NO_IDENTITY),
);
const count = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 2 ** 44 }));

const rowsOf = (cube: SectionCube) =>
  fc.array(
    fc.record({
      dims: fc.array(code, { minLength: SECTION_DIMS[cube], maxLength: SECTION_DIMS[cube] }),
      outcome: fc.integer({ min: 0, max: OUTCOME_COUNT - 1 }),
      n: count,
    }),
    { maxLength: 300 },
  );

/** Rows of a section as "dims -> counts" for comparison, zero rows left out. */
function table(section: Section): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (let r = 0; r < section.rows; r++) {
    const id = section.dims.map((column) => column[r]).join('.');
    out.set(id, Array.from(section.counts.subarray(r * OUTCOME_COUNT, (r + 1) * OUTCOME_COUNT)));
  }
  return out;
}

describe('section codec', () => {
  it('decodes what it encodes, for every cube (property)', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom<SectionCube>('t', 'k', 'i', 's', 'x', 'f')
          .chain((cube) => fc.tuple(fc.constant(cube), rowsOf(cube))),
        fc.integer({ min: 0, max: 2 ** 40 }),
        ([cube, rows], version) => {
          const builder = new SectionRows(cube);
          const expected = new Map<string, number[]>();
          for (const { dims, outcome, n } of rows) {
            builder.add(dims, outcome, n);
            const id = dims.join('.');
            const counts = expected.get(id) ?? new Array<number>(OUTCOME_COUNT).fill(0);
            counts[outcome]! += n;
            expected.set(id, counts);
          }
          for (const [id, counts] of expected) if (counts.every((n) => n === 0)) expected.delete(id);
          const section = builder.toSection(version);
          const bytes = encodeSection(section);
          const decoded = decodeSection(bytes);
          expect(decoded.cube).toBe(cube);
          expect(decoded.version).toBe(version);
          expect(sectionVersion(bytes)).toBe(version);
          expect(bytes.subarray(4, 12).equals(versionBytes(version))).toBe(true);
          expect(table(decoded)).toEqual(expected);
          expect(decoded).toEqual(section);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('merges two sections like adding both into one builder (property)', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom<SectionCube>('t', 'k', 'x', 'f')
          .chain((cube) => fc.tuple(fc.constant(cube), rowsOf(cube), rowsOf(cube))),
        ([cube, left, right]) => {
          const a = new SectionRows(cube);
          const b = new SectionRows(cube);
          const both = new SectionRows(cube);
          for (const { dims, outcome, n } of left) {
            a.add(dims, outcome, n);
            both.add(dims, outcome, n);
          }
          for (const { dims, outcome, n } of right) {
            b.add(dims, outcome, n);
            both.add(dims, outcome, n);
          }
          expect(mergeSections(a.toSection(1), b.toSection(2), 3)).toEqual(both.toSection(3));
          expect(mergeSections(emptySection(cube), b.toSection(2), 3)).toEqual(b.toSection(3));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('derives x from f like summing f over tag sets in a builder (property)', () => {
    fc.assert(
      fc.property(rowsOf('f'), (rows) => {
        const f = new SectionRows('f');
        const x = new SectionRows('x');
        for (const { dims, outcome, n } of rows) {
          f.add(dims, outcome, n);
          x.add(dims.slice(0, 2), outcome, n);
        }
        expect(deriveIdentityKey(f.toSection(1), 4)).toEqual(x.toSection(4));
      }),
      { numRuns: 300 },
    );
  });

  it('compresses a large section below its raw size and below 6 bytes a sparse row', () => {
    const builder = new SectionRows('f');
    for (let identity = 0; identity < 200; identity++) {
      for (let key = identity * 5; key < identity * 5 + 5; key++)
        builder.add([identity, key, key % 7], 0, 1 + (key % 3));
    }
    const bytes = encodeSection(builder.toSection(1));
    expect(bytes[3]! & 1).toBe(1);
    expect(bytes.length / 1000).toBeLessThan(6);
    expect(decodeSection(bytes).rows).toBe(1000);
    // Unless told not to (an open hour's f part): the same rows, uncompressed.
    const plain = encodeSection(builder.toSection(1), { compress: false });
    expect(plain[3]! & 1).toBe(0);
    expect(plain.length).toBeGreaterThan(bytes.length);
    expect(decodeSection(plain)).toEqual(decodeSection(bytes));
  });

  it('finds the rows of one identity, also of the no-identity rows', () => {
    const builder = new SectionRows('x');
    builder.add([3, 1], 0, 1);
    builder.add([3, 9], 2, 4);
    builder.add([5, 0], 0, 1);
    builder.add([NO_IDENTITY, 7], 1, 2);
    const section = decodeSection(encodeSection(builder.toSection(7)));
    expect(rowsOfFirst(section, 3)).toEqual([0, 2]);
    expect(rowsOfFirst(section, 4)).toEqual([2, 2]);
    expect(rowsOfFirst(section, 5)).toEqual([2, 3]);
    expect(rowsOfFirst(section, NO_IDENTITY)).toEqual([3, 4]);
  });

  it('derives identity × key from the full cube by summing over tag sets', () => {
    const f = new SectionRows('f');
    f.add([1, 2, 0], 0, 3);
    f.add([1, 2, 5], 0, 4);
    f.add([1, 2, 5], 8, 1);
    f.add([NO_IDENTITY, 2, 1], 0, 2);
    const x = deriveIdentityKey(f.toSection(1), 2);
    expect(table(x)).toEqual(
      new Map([
        ['1.2', [7, 0, 0, 0, 0, 0, 0, 0, 1]],
        [`${NO_IDENTITY}.2`, [2, 0, 0, 0, 0, 0, 0, 0, 0]],
      ]),
    );
  });

  it('refuses bytes that are not a section, and truncated ones', () => {
    expect(() => decodeSection(Buffer.from('hello world, not a section'))).toThrow(/magic/);
    const bytes = encodeSection(new SectionRows('k').toSection(1));
    expect(() => decodeSection(bytes.subarray(0, 10))).toThrow();
  });
});
