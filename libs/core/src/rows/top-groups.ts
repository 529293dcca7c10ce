/**
 * Which groups the first rows of a query can come from, known before any row is built (docs/api.md#order-and-limit), so that a top-N over thousands of groups builds rows for a few of them.
 *
 * It holds for one slice (no time granularity), `orderBy` a counter in `desc` order and a `limit`
 * within the row cap, and groups that are rows one to one (key, identity, tags; not `tag`, whose rows
 * split a tag set, nor `region`, whose rows join many tag-set codes). Under `tags` the reader also
 * checks that no tag-set code carries a region (two codes with the same tags are one row then). Then the first `limit` rows are among the groups whose counter is at least the
 * limit-th largest value over all groups: ties at that value are kept, so the default order that
 * breaks them sees the same groups, and a group that counts nothing (it creates no row) can only tie
 * at 0, where nothing is dropped. The row cap is not affected: with a limit within it, no answer is
 * over it.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import type { ParsedQuery } from '../types';
import { counterIndex, TOTAL } from './counts';

export interface TopGroups {
  /** Counter the rows are ordered by (counterIndex: an outcome, or TOTAL). */
  counter: number;
  limit: number;
}

/** Whether the query's rows come from its largest groups only (see the header), and which. */
export function topGroupsOf(query: ParsedQuery, maxRows: number): TopGroups | undefined {
  const { groupBy, orderBy, order, limit } = query;
  if (groupBy.granularity !== undefined || orderBy === undefined || orderBy === 'time') return undefined;
  if (order !== 'desc' || limit === undefined || limit > maxRows) return undefined;
  if (groupBy.tag || groupBy.region || !(groupBy.key || groupBy.identity || groupBy.tags)) return undefined;
  return { counter: counterIndex(orderBy), limit };
}

/** The counter's value in nine outcome counts (OUTCOMES order). */
export function counterValue(counts: readonly number[], counter: number): number {
  if (counter !== TOTAL) return counts[counter] ?? 0;
  let total = 0;
  for (let o = 0; o < OUTCOME_COUNT; o++) total += counts[o] ?? 0;
  return total;
}

/**
 * The smallest value a group needs to stay: the limit-th largest of `values`, or -Infinity when
 * there are no more values than the limit (every group stays).
 *
 * One pass with a min-heap of the `limit` largest seen: a top 10 of 2,000 identities compares each
 * value with the heap's least and rarely moves it, where sorting a copy cost a tenth of the request.
 */
export function topThreshold(values: Float64Array, limit: number): number {
  if (values.length <= limit) return -Infinity;
  if (limit <= 0) return Infinity;
  const heap = Float64Array.from(values.subarray(0, limit)).sort();
  // A sorted array is a min-heap.
  for (let n = limit; n < values.length; n++) {
    const value = values[n]!;
    if (value <= heap[0]!) continue;
    siftDown(heap, value);
  }
  return heap[0]!;
}

/** Replaces the least value of min-heap `heap` with `value` and restores the heap. */
function siftDown(heap: Float64Array, value: number): void {
  const size = heap.length;
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && heap[right]! < heap[left]! ? right : left;
    if (heap[child]! >= value) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = value;
}
