/**
 * How many groups (key / identity / tag / tags combinations) have data in some cells (pure):
 * the group count of buildRows, by the same rule (groupIndex: a cell that counts nothing makes
 * no group; under groupBy=identity a cell without identity none; under groupBy=tag one group per
 * distinct tag). 1 when the query groups by time only (or not at all).
 */
import type { Cell, ParsedQuery } from '../types';
import { hasCount } from './counts';
import { groupDimsOf, groupIndex, hasGroupDims } from './groups';

export function groupCount(query: ParsedQuery, cells: Iterable<Cell>): number {
  const dims = groupDimsOf(query);
  if (!hasGroupDims(dims)) return 1;
  const index = groupIndex(dims);
  const register = () => undefined;
  for (const cell of cells) if (hasCount(cell.counts)) index.forEachGroupOf(cell, register);
  return index.groups.length;
}

/** The cells that count something (only those make groups and rows). */
export const countedCells = (cells: readonly Cell[]): Cell[] => cells.filter((c) => hasCount(c.counts));
