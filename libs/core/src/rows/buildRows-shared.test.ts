/**
 * sumCells remembers a cell's groups by its tag array or identity object and keeps each group's
 * counters of the last slice it counted in (buildRows.ts, groups.ts). Whatever objects the cells
 * share and in whatever order they come, the rows must be those of cells that share nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sliceStarts } from '../time';
import type { Cell, ParsedQuery } from '../types';
import { buildRows, type BuildRowsOptions } from './buildRows';

const H0 = 490_000;
const hours = sliceStarts(H0, H0 + 4, 'hour');

// No ',' in values: the default order then tells every two groups apart (tags joined with ','),
// so the order cells come in cannot change the rows.
const str = fc.constantFrom('a', 'b', 'c', 'é', 'z');
// A small "dictionary": cells draw shared objects from it, as readers hand them over per code.
// Equal values in distinct objects occur too (two codes of one tag set in two regions).
const dictionary = fc.record({
  tagSets: fc.array(
    fc.uniqueArray(str, { maxLength: 3 }).map((t) => t.sort()),
    { minLength: 1, maxLength: 6 },
  ),
  identities: fc.array(fc.record({ id: str, externalId: str }), { minLength: 1, maxLength: 5 }),
});
const cellOf = fc.record({
  slice: fc.constantFrom(...hours),
  keyId: str,
  set: fc.nat(),
  identity: fc.option(fc.nat(), { nil: undefined }),
  region: fc.option(str, { nil: undefined }),
  counts: fc.array(fc.nat({ max: 3 }), { minLength: 9, maxLength: 9 }),
});
const groupBy = fc.record({
  key: fc.boolean(),
  identity: fc.boolean(),
  tag: fc.boolean(),
  tags: fc.boolean(),
  region: fc.boolean(),
  granularity: fc.option(fc.constant('hour' as const), { nil: undefined }),
});

describe('buildRows over cells that share their objects', () => {
  it('answers as over cells that share none, in any order (property)', () => {
    fc.assert(
      fc.property(
        dictionary,
        fc.array(cellOf, { maxLength: 40 }),
        groupBy,
        fc.boolean(),
        fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
        fc.array(fc.nat()),
        (dict, drawn, g, trimLeading, limit, shuffle) => {
          const cells: Cell[] = drawn.map((c) => ({
            slice: c.slice,
            keyId: c.keyId,
            tags: dict.tagSets[c.set % dict.tagSets.length]!,
            ...(c.identity !== undefined && {
              identity: dict.identities[c.identity % dict.identities.length]!,
            }),
            ...(c.region !== undefined && { region: c.region }),
            counts: c.counts,
          }));
          const own = cells.map((c) => ({
            ...c,
            tags: [...c.tags!],
            ...(c.identity && { identity: { ...c.identity } }),
          }));
          for (let i = own.length - 1; i > 0; i--) {
            const j = (shuffle[i] ?? 0) % (i + 1);
            [own[i], own[j]] = [own[j]!, own[i]!];
          }
          const query: ParsedQuery = {
            apiId: 'api',
            startHour: H0,
            endHour: H0 + 4,
            groupBy: { ...g, tags: g.tags && !g.tag },
            ...(limit !== undefined && { orderBy: 'total' as const, order: 'desc' as const, limit }),
          };
          const options: BuildRowsOptions = {
            slices: g.granularity ? hours : null,
            trimLeading: trimLeading && g.granularity !== undefined,
            maxRows: 1000,
          };
          expect(JSON.stringify(buildRows(query, cells, options))).toBe(
            JSON.stringify(buildRows(query, own, options)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
