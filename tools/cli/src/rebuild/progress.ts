/**
 * Progress of a rebuild per partition (pure): how far g' got between its start and the end of
 * the topic, next to the current generation g. `rebuild status` prints it as a table; the running
 * rebuild shows it as one bar per partition.
 */
import { partitionField } from '@va/store';

export interface PartitionProgress {
  field: string;
  /** First offset the rebuild replays. */
  start: number;
  /** Last offset in the topic (high - 1; start - 1 when there is nothing to replay). */
  end: number;
  /** wm of the generation being built (-1 = none). */
  target: number;
  /** wm of the current generation (-1 = none). */
  source: number;
}

export function progressRows(
  spans: readonly { topic: string; partition: number; low: number; high: number }[],
  starts: readonly { field: string; wm: number }[],
  target: readonly (number | null)[],
  source: readonly (number | null)[],
): PartitionProgress[] {
  const startOf = new Map(starts.map((s) => [s.field, s.wm + 1]));
  return spans.map((s, n) => {
    const field = partitionField(s.topic, s.partition);
    const start = Math.max(startOf.get(field) ?? s.low, s.low);
    return {
      field,
      start,
      end: Math.max(s.high - 1, start - 1),
      target: target[n] ?? -1,
      source: source[n] ?? -1,
    };
  });
}

/** Offsets to replay, and replayed so far. */
export const totalOf = (p: PartitionProgress): number => p.end - p.start + 1;
export const doneOf = (p: PartitionProgress): number => Math.max(0, Math.min(p.target, p.end) - p.start + 1);

export function percentOf(p: PartitionProgress): number {
  const total = totalOf(p);
  return total <= 0 ? 100 : Math.floor((100 * doneOf(p)) / total);
}

/** g' holds every offset g holds, on every partition (the switch checks per-API offsets too). */
export const caughtUp = (rows: readonly PartitionProgress[]): boolean =>
  rows.every((r) => r.target >= r.source);

export function formatProgress(rows: readonly PartitionProgress[]): string[] {
  const header = ['partition', 'replayed', 'of', 'done', 'wm new', 'wm current'];
  const body = rows.map((r) => [
    r.field,
    String(doneOf(r)),
    String(totalOf(r)),
    `${percentOf(r)}%`,
    String(r.target),
    String(r.source),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c]!.length)));
  return [header, ...body].map((row) =>
    row
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ')
      .trimEnd(),
  );
}
