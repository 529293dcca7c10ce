/**
 * Waits until the ingest worker has applied given offsets: per partition, the watermark of the
 * current generation reaches the target (docs/design.md: wm = every message through it is
 * applied). The generation is read on every poll, so a rebuild switching meanwhile is followed.
 * When nothing moves for a while it asks Kafka whether any worker is in the consumer group, so
 * that "no worker runs" is said at once instead of after the whole timeout.
 */
import type { Kafka } from 'kafkajs';
import { partitionField, readGeneration, readWatermarks, type RedisClient } from '@va/store';

export interface AppliedTarget {
  topic: string;
  partition: number;
  /** Offsets from `first` through `last` must be applied. */
  first: number;
  last: number;
}

export type WaitResult =
  | { status: 'applied' }
  | { status: 'no-worker'; group: string; applied: number; total: number }
  | { status: 'timeout'; applied: number; total: number; behind: string[] };

export interface WaitOptions {
  prefix: string;
  group: string;
  timeoutMs: number;
  /** Without progress for this long, check the consumer group for members. */
  stallMs?: number;
  pollMs?: number;
  onProgress?: (applied: number, total: number) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Offsets of the targets already applied, given each partition's wm. */
export function appliedCount(targets: readonly AppliedTarget[], wms: readonly (number | null)[]): number {
  return targets.reduce((sum, t, n) => sum + Math.max(0, Math.min(wms[n] ?? -1, t.last) - t.first + 1), 0);
}

async function groupHasMembers(kafka: Kafka, group: string): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([group]);
    return (groups[0]?.members.length ?? 0) > 0;
  } finally {
    await admin.disconnect();
  }
}

export async function waitApplied(
  redis: RedisClient,
  kafka: Kafka,
  targets: readonly AppliedTarget[],
  options: WaitOptions,
): Promise<WaitResult> {
  const { prefix, group, timeoutMs } = options;
  // A worker that runs picks new records up within a second or two; 5 s of nothing is worth a look.
  const stallMs = options.stallMs ?? 5_000;
  const total = appliedCount(
    targets,
    targets.map((t) => t.last),
  );
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    const generation = await readGeneration(redis, prefix);
    const wms = await readWatermarks(redis, { prefix, generation }, targets);
    const applied = appliedCount(targets, wms);
    options.onProgress?.(applied, total);
    if (applied >= total) return { status: 'applied' };
    if (applied > last) {
      last = applied;
      movedAt = Date.now();
    } else if (Date.now() - movedAt >= stallMs) {
      if (!(await groupHasMembers(kafka, group))) return { status: 'no-worker', group, applied, total };
      movedAt = Date.now();
    }
    if (Date.now() >= deadline) {
      const behind = targets.flatMap((t, n) =>
        (wms[n] ?? -1) < t.last
          ? [`${partitionField(t.topic, t.partition)} at ${wms[n] ?? -1} of ${t.last}`]
          : [],
      );
      return { status: 'timeout', applied, total, behind };
    }
    await sleep(options.pollMs ?? 500);
  }
}
