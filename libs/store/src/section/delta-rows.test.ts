import { describe, expect, it } from 'vitest';
import { NO_IDENTITY } from './codec';
import { addDeltaHash, emptySectionRows, forEachDeltaField } from './delta-rows';

/** Delta hashes of cubes t, k and f (both identity parts), by cube suffix. */
const SOME_HASHES = {
  t: { '0': '5', '8': '1' },
  'k:0': { '1a:0': '3', '2:4': '2' },
  'f:b': { '1.2:0': '4' },
  'f:_': { '1.0:1': '2' },
};

/** Section rows of delta hashes, by cube suffix. */
function rowsOf(hashes: Record<string, Record<string, string>>) {
  const rows = emptySectionRows();
  for (const [suffix, hash] of Object.entries(hashes)) addDeltaHash(rows, suffix, hash);
  return rows;
}

describe('addDeltaHash', () => {
  it('reads every cube of the v1 layout into rows by code', () => {
    const rows = rowsOf(SOME_HASHES);
    expect(rows.get('t')!.toSection(1).counts).toEqual(new Float64Array([5, 0, 0, 0, 0, 0, 0, 0, 1]));
    const k = rows.get('k')!.toSection(1);
    expect(Array.from(k.dims[0]!)).toEqual([2, 46]);
    const f = rows.get('f')!.toSection(1);
    expect(f.dims.map((column) => Array.from(column))).toEqual([
      [11, NO_IDENTITY],
      [1, 1],
      [2, 0],
    ]);
  });

  it('throws on fields it does not understand instead of counting them elsewhere', () => {
    const rows = emptySectionRows();
    expect(() => addDeltaHash(rows, 'k:0', { '1a': '3' })).toThrow(/no ":<o>"/);
    expect(() => addDeltaHash(rows, 'k:0', { '1a:9': '3' })).toThrow(/bad outcome/);
    expect(() => addDeltaHash(rows, 'f:1', { '1:0': '3' })).toThrow(/no "<key>.<set>"/);
    expect(() => addDeltaHash(rows, 'q:1', { '1:0': '3' })).toThrow(/unknown cube/);
    expect(() => addDeltaHash(rows, 'i:0', { 'A:0': '3' })).toThrow(/not in base 36/);
    expect(() => addDeltaHash(rows, 'i:0', { '01:0': '3' })).toThrow(/leading zero/);
    expect(() => addDeltaHash(rows, 'i:0', { '1:0': 'x' })).toThrow(/bad value/);
  });
});

describe('forEachDeltaField', () => {
  it('gives the fields addDeltaHash reads back into the same section, for every cube', () => {
    const rows = rowsOf({
      ...SOME_HASHES,
      'k:1': { '10:3': '7' },
      'i:0': { '3:1': '1' },
      's:0': { '0:0': '9' },
    });
    for (const cube of ['t', 'k', 'i', 's', 'f'] as const) {
      const section = rows.get(cube)!.toSection(0);
      const hashes = new Map<string, Record<string, string>>();
      forEachDeltaField(section, (suffix, field, n) => {
        const hash = hashes.get(suffix) ?? {};
        hash[field] = String(n);
        hashes.set(suffix, hash);
      });
      const again = emptySectionRows();
      for (const [suffix, hash] of hashes) addDeltaHash(again, suffix, hash);
      expect(again.get(cube)!.toSection(0)).toEqual(section);
    }
  });
});
