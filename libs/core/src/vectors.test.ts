/**
 * The shared vectors (a copy in libs/testkit/fixtures/getVerifications.json):
 * fixed events and the answers docs/api.md's rules give. Checked against the oracle, against the
 * pure read pipeline (cells -> buildRows) and, for invalid queries, against parseQuery.
 */
import { describe, expect, it } from 'vitest';
import { loadVectors } from '@va/testkit';
import { oracle } from './oracle/oracle';
import { parseQuery } from './query/parseQuery';
import { rowsFromEvents } from './testing/pipeline';
import { hourOf } from './time';

const vectors = loadVectors();
const MAX_ROWS = 100_000;
const options = { now: vectors.now, maxRows: MAX_ROWS };
// A lower bound well before the data, so that trimming leading slices is exercised.
const lowestHour = Math.min(...vectors.events.map((e) => hourOf(e.time))) - 72;

function parsed(query: string) {
  const result = parseQuery(new URLSearchParams(query), options);
  if (!result.ok) throw new Error(`vector query rejected: ${JSON.stringify(result.errors)}`);
  return result.query;
}

describe('getVerifications vectors', () => {
  it('has cases', () => {
    expect(vectors.cases.length).toBeGreaterThan(0);
    expect(vectors.invalid.length).toBeGreaterThan(0);
  });

  describe.each(vectors.cases)('$name', ({ query, body }) => {
    it('oracle gives the body', () => {
      const result = oracle(vectors.events, parsed(query), options);
      expect(result).toMatchObject({ ok: true });
      expect(result.ok && result.rows).toEqual(body);
    });

    it('buildRows over one cell per event gives the body', () => {
      const result = rowsFromEvents(vectors.events, parsed(query), { maxRows: MAX_ROWS, lowestHour });
      expect(result).toEqual({ ok: true, rows: body });
    });
  });

  describe.each(vectors.invalid)('invalid: $name', ({ query, anyLocationOf }) => {
    it('is rejected at one of the expected locations', () => {
      const result = parseQuery(new URLSearchParams(query), options);
      expect(result.ok).toBe(false);
      const locations = result.ok ? [] : result.errors.map((e) => e.location);
      expect(locations.some((l) => anyLocationOf.includes(l))).toBe(true);
    });
  });
});
