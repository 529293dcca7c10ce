import { describe, expect, it } from 'vitest';
import type { Datapoint } from '@va/contracts';
import { OUTCOME_FIELDS, outcomeCounts } from '@va/contracts/outcomes';
import { stack, toCounts, topRows, toSeries } from './series';

function row(fields: Partial<Datapoint>): Datapoint {
  const counts = { ...outcomeCounts(), ...fields };
  return { ...counts, total: OUTCOME_FIELDS.reduce((sum, o) => sum + counts[o], 0) };
}

describe('series', () => {
  const rows = [row({ time: 3_600_000, valid: 2, expired: 1 }), row({ time: 7_200_000, notFound: 4 })];

  it('splits rows into one array per outcome, times in seconds', () => {
    const s = toSeries(rows);
    expect(s.time).toEqual([3600, 7200]);
    expect(s.outcomes.valid).toEqual([2, 0]);
    expect(s.outcomes.notFound).toEqual([0, 4]);
    expect(s.outcomes.expired).toEqual([1, 0]);
    expect(s.total).toEqual([3, 4]);
  });

  it('stacks bottom-up; the last running sum is the total', () => {
    const sums = stack(toSeries(rows));
    expect(sums[0]).toEqual([2, 0]);
    expect(sums[1]).toEqual([2, 4]);
    expect(sums.at(-1)).toEqual([3, 4]);
  });

  it('reads totals, all zeros for no row', () => {
    expect(toCounts(undefined).total).toBe(0);
    expect(toCounts(rows[0]).expired).toBe(1);
  });

  it('gives each top row its share of the total', () => {
    const top = topRows(
      [
        { ...row({ valid: 3 }), keyId: 'k1' },
        { ...row({ valid: 1 }), identity: { id: 'id_1', externalId: 'acme' } },
        { ...row({ valid: 1 }), tag: 'a' },
      ],
      4,
    );
    expect(top).toEqual([
      { label: 'k1', total: 3, share: 0.75 },
      { label: 'acme (id_1)', total: 1, share: 0.25 },
      { label: 'a', total: 1, share: 0.25 },
    ]);
    expect(topRows([row({ valid: 0 })], 0)[0]?.share).toBe(0);
  });
});
