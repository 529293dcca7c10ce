import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import type { BucketRead } from '../plan-types';
import type { Cell } from '../types';

/**
 * The cells a plan's reads give, as the store sums them: each read adds (or subtracts) the events its bucket
 * holds (`held`) to its slice, per key when `byKey`. A slice counted below zero is a planning error: thrown.
 * For tests that model the stored buckets (oracle/zones.test.ts, oracle/billing-zones.test.ts).
 */
export function cellsOfReads(
  reads: readonly BucketRead[],
  held: (read: BucketRead) => Iterable<VerificationEvent>,
  byKey: boolean,
): Cell[] {
  const sums = new Map<string, { slice: number; keyId?: string; counts: number[] }>();
  for (const read of reads) {
    for (const e of held(read)) {
      const keyId = byKey ? e.keyId : undefined;
      const id = `${read.slice}|${keyId}`;
      const cell = sums.get(id) ?? {
        slice: read.slice!,
        ...(keyId && { keyId }),
        counts: OUTCOMES.map(() => 0),
      };
      cell.counts[OUTCOMES.indexOf(e.outcome)]! += read.subtract ? -1 : 1;
      sums.set(id, cell);
    }
  }
  const cells: Cell[] = [...sums.values()].filter((s) => s.counts.some((n) => n !== 0));
  for (const cell of cells) if (cell.counts.some((n) => n < 0)) throw new Error('a slice counted below zero');
  return cells;
}
