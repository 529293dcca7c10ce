import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOUR_MS, sliceStarts } from '../time';
import type { Cell, ParsedQuery } from '../types';
import { buildRows, buildRowsJson, type BuildRowsOptions } from './buildRows';

const H0 = 490_000;
const hours = sliceStarts(H0, H0 + 5, 'hour');

/** The pieces of buildRowsJson joined, for some chunk size. */
function json(query: ParsedQuery, cells: Cell[], options: BuildRowsOptions, rowsPerChunk: number) {
  const result = buildRowsJson(query, cells, options);
  if (!result.ok) return result;
  const pieces = [...result.rows.pieces(rowsPerChunk)];
  const text = new TextDecoder().decode(Buffer.concat(pieces));
  return { ok: true, length: result.rows.length, pieces, text };
}

// Strings that JSON must escape or encode: quotes, backslashes, control characters, non-ASCII, a lone surrogate.
const str = fc.constantFrom('a', 'b', 'é', 'k"1', 'x\\y', 'line\nbreak', '\u0001', '😀', '\ud800', 'z');
const cell = fc.record({
  slice: fc.constantFrom(...hours),
  keyId: str,
  identity: fc.option(fc.record({ id: str, externalId: str }), { nil: undefined }),
  tags: fc.uniqueArray(str, { maxLength: 3 }).map((t) => t.sort()),
  counts: fc.array(fc.nat({ max: 3 }), { minLength: 9, maxLength: 9 }),
});
const groupBy = fc.record({
  key: fc.boolean(),
  identity: fc.boolean(),
  tag: fc.boolean(),
  granularity: fc.option(fc.constant('hour' as const), { nil: undefined }),
});
const order = fc.record({
  orderBy: fc.option(fc.constantFrom('time' as const, 'valid' as const, 'total' as const), {
    nil: undefined,
  }),
  order: fc.option(fc.constantFrom('asc' as const, 'desc' as const), { nil: undefined }),
  limit: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
});

describe('buildRowsJson', () => {
  it('writes exactly JSON.stringify of buildRows, in pieces of any size', () => {
    fc.assert(
      fc.property(
        fc.array(cell, { maxLength: 30 }),
        groupBy,
        fc.boolean(),
        order,
        fc.integer({ min: 1, max: 50 }),
        (cells, g, tags, o, rowsPerChunk) => {
          const query: ParsedQuery = {
            apiId: 'api',
            startHour: H0,
            endHour: H0 + 5,
            groupBy: { ...g, tags: tags && !g.tag },
            ...(o.orderBy !== undefined && (o.orderBy !== 'time' || g.granularity) && { orderBy: o.orderBy }),
            ...(o.order !== undefined && { order: o.order }),
            ...(o.limit !== undefined && { limit: o.limit }),
          };
          const options: BuildRowsOptions = {
            slices: g.granularity ? hours : null,
            trimLeading: false,
            maxRows: 60,
          };
          const rows = buildRows(query, cells, options);
          const written = json(query, cells, options, rowsPerChunk);
          if (!rows.ok) {
            expect(written).toEqual(rows);
            return;
          }
          expect(written.ok).toBe(true);
          if (!('text' in written)) return;
          expect(written.text).toBe(JSON.stringify(rows.rows));
          expect(written.length).toBe(rows.rows.length);
          expect(written.pieces).toHaveLength(Math.max(1, Math.ceil(rows.rows.length / rowsPerChunk)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes [] for no rows, and rows without time or groups', () => {
    const query: ParsedQuery = {
      apiId: 'api',
      startHour: H0,
      endHour: H0,
      groupBy: { key: true, identity: false, tag: false, tags: false },
    };
    expect(json(query, [], { slices: null, trimLeading: false, maxRows: 10 }, 5)).toMatchObject({
      text: '[]',
      length: 0,
    });
    const total: ParsedQuery = { ...query, groupBy: { ...query.groupBy, key: false } };
    const cells: Cell[] = [{ slice: H0 * HOUR_MS, counts: [1, 2, 3, 4, 5, 6, 7, 8, 9] }];
    const written = json(total, cells, { slices: null, trimLeading: false, maxRows: 10 }, 5);
    expect(written).toMatchObject({ length: 1 });
    expect(JSON.parse((written as { text: string }).text)).toEqual([
      {
        valid: 1,
        notFound: 2,
        forbidden: 3,
        usageExceeded: 4,
        rateLimited: 5,
        unauthorized: 6,
        disabled: 7,
        insufficientPermissions: 8,
        expired: 9,
        total: 45,
      },
    ]);
  });
});
