/**
 * The backfill's tallies and its summary (pure). "Counted" is exact: everything produced to the
 * backfill topic is applied by the ingest worker (the command waits for it) except what the
 * worker itself dead-letters (an API owned by another workspace, an event that expired in
 * between); those are read back from the DLQ by their x-original-* headers.
 */
import type { IHeaders } from 'kafkajs';
import type { DlqReason } from '@va/ingest';

export interface BackfillTally {
  source: string;
  topic: string;
  read: number;
  produced: number;
  /** Dead-lettered by the CLI, per reason. */
  rejected: Map<DlqReason | string, number>;
  /** Dead-lettered by the ingest worker (read back from the DLQ), per reason; null = not known. */
  workerRejected: Map<DlqReason | string, number> | null;
  seconds: number;
}

export const bump = (map: Map<string, number>, key: string, n = 1): void => {
  map.set(key, (map.get(key) ?? 0) + n);
};

const header = (headers: IHeaders | undefined, name: string): string | undefined => {
  const raw = headers?.[name];
  const first = Array.isArray(raw) ? raw[0] : raw;
  return first === undefined ? undefined : first.toString();
};

/** Per partition of the backfill topic: offsets [from, to) this backfill produced. */
export type ProducedRanges = Map<number, { from: number; to: number }>;

/**
 * Adds the DLQ records the worker wrote for offsets this backfill produced to `into` (a record
 * repeated by a worker crash counts once: `seen` holds "partition/offset").
 */
export function tallyWorkerDeadLetters(
  records: readonly { headers?: IHeaders }[],
  backfillTopic: string,
  produced: ProducedRanges,
  seen: Set<string>,
  into: Map<string, number>,
): void {
  for (const { headers } of records) {
    if (header(headers, 'x-original-topic') !== backfillTopic) continue;
    const partition = Number(header(headers, 'x-original-partition'));
    const offset = Number(header(headers, 'x-original-offset'));
    const range = produced.get(partition);
    if (!range || offset < range.from || offset >= range.to) continue;
    const id = `${partition}/${offset}`;
    if (seen.has(id)) continue;
    seen.add(id);
    bump(into, header(headers, 'x-dlq-reason') ?? 'unknown');
  }
}

const sum = (map: Map<string, number> | null): number =>
  map === null ? 0 : [...map.values()].reduce((a, b) => a + b, 0);

const reasons = (map: Map<string, number>): string =>
  [...map]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([reason, n]) => `${reason}=${n}`)
    .join(' ');

export function counted(t: BackfillTally): number | null {
  return t.workerRejected === null ? null : t.produced - sum(t.workerRejected);
}

export function formatSummary(t: BackfillTally): string {
  const all = new Map(t.rejected);
  for (const [reason, n] of t.workerRejected ?? []) bump(all, reason, n);
  const dead = sum(all);
  const c = counted(t);
  const lines = [
    `backfill from ${t.source} into ${t.topic} in ${t.seconds.toFixed(1)} s`,
    `  read           ${t.read}`,
    `  produced       ${t.produced}`,
    `  counted        ${c === null ? 'not known (not applied yet)' : c}`,
    `  dead-lettered  ${dead}${dead > 0 ? `  ${reasons(all)}` : ''}`,
  ];
  const byWorker = sum(t.workerRejected);
  if (byWorker > 0)
    lines.push(`                 (${byWorker} of them by the ingest worker: ${reasons(t.workerRejected!)})`);
  return `${lines.join('\n')}\n`;
}

export function summaryJson(t: BackfillTally): Record<string, unknown> {
  return {
    source: t.source,
    topic: t.topic,
    read: t.read,
    produced: t.produced,
    counted: counted(t),
    deadLettered: Object.fromEntries(t.rejected),
    deadLetteredByWorker: t.workerRejected && Object.fromEntries(t.workerRejected),
    seconds: t.seconds,
  };
}
