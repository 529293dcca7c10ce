/** Summed counts as cells with decoded dimensions (dictionary codes to keys, identities, tag sets and regions). */
import { type Cell } from '@va/core';
import type { ReadDictionaries } from '../read-dictionaries';
import { CodeCounts, groupCodes } from '../read-fields';

/**
 * The summed counts as cells with decoded dimensions. Codes newer than the loaded
 * dictionaries are loaded first; a code no dictionary holds is a broken store (throws).
 */
export async function decodeCells(counts: CodeCounts, dicts: ReadDictionaries): Promise<Cell[]> {
  // Each name is parsed once: its codes (-1: not grouped), three per group in Map order.
  const codes: number[] = [];
  const max = { k: -1, i: -1, s: -1 };
  for (const groups of counts.slices.values()) {
    for (const group of groups.keys()) {
      const [k = -1, i = -1, s = -1] = groupCodes(group);
      codes.push(k, i, s);
      if (k > max.k) max.k = k;
      if (i > max.i) max.i = i;
      if (s > max.s) max.s = s;
    }
  }
  if (max.k >= 0) await dicts.ensure('k', max.k);
  if (max.i >= 0) await dicts.ensure('i', max.i);
  if (max.s >= 0) await dicts.ensure('s', max.s);

  const cells: Cell[] = [];
  let n = 0;
  for (const [slice, groups] of counts.slices) {
    for (const values of groups.values()) {
      const k = codes[n]!;
      const i = codes[n + 1]!;
      const s = codes[n + 2]!;
      n += 3;
      const cell: Cell = { slice, counts: values };
      if (k !== -1) cell.keyId = decoded(dicts.keyId(k), 'k', k);
      if (i !== -1) cell.identity = decoded(dicts.identity(i), 'i', i);
      if (s !== -1) {
        cell.tags = decoded(dicts.tagSet(s), 's', s);
        const region = dicts.region(s);
        if (region !== undefined) cell.region = region;
      }
      cells.push(cell);
    }
  }
  return cells;
}

function decoded<T>(value: T | undefined, d: string, code: number): T {
  if (value === undefined)
    throw new Error(`counter uses code ${code} of dictionary ${d}, which it does not hold`);
  return value;
}
