/**
 * Planning a rebuild (pure): what --since means, whether the topics still hold what the store
 * counts, where each partition starts, and how to say all that to the operator (docs/rebuild.md).
 */
import { dayOf, hourOf, monthOf, monthStart } from '@va/core';
import { partitionField } from '@va/store';

/**
 * An event may carry a time up to 5 minutes after its record's Kafka timestamp (docs/api.md#dead-letters, `future_time`), and
 * producers' clocks drift: records from this long before a time may hold events of that time.
 */
export const CLOCK_MARGIN_MS = 3_600_000;

const DAY_MS = 86_400_000;

export const iso = (ms: number): string => new Date(ms).toISOString();

/** --since: an ISO 8601 date/time or unix milliseconds; never in the future. */
export function parseSince(raw: string, now: number): number | string {
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isSafeInteger(ms)) return `--since ${JSON.stringify(raw)} is neither an ISO date nor unix ms`;
  if (ms > now) return `--since ${iso(ms)} is in the future`;
  return ms;
}

/** The rebuilt range starts at a month start: a month rollup cannot be split between two sources. */
export interface Boundary {
  ms: number;
  hour: number;
  day: number;
  month: number;
}

export function boundaryOf(since: number): Boundary {
  const month = monthOf(since);
  const ms = monthStart(month);
  return { ms, hour: hourOf(ms), day: dayOf(ms), month };
}

/** A partition of a topic the rebuild replays: offsets, and the timestamp of its first retained record. */
export interface PartitionSpan {
  topic: string;
  partition: number;
  /** Earliest retained offset (> 0: older records were deleted). */
  low: number;
  /** Next offset to be written. */
  high: number;
  /** Kafka timestamp of the record at `low`; null when unknown (nothing deleted, or nothing retained). */
  firstTimestamp: number | null;
}

export type Coverage = { ok: true } | { ok: false; reasons: string[]; suggestedSince: number | null };

export interface CoverageInput {
  spans: readonly PartitionSpan[];
  /** Start of the oldest bucket the current generation still counts; null = none. */
  oldestCounted: number | null;
  /** First rebuilt instant (--since rounded to its month); null = rebuild everything. */
  boundary: number | null;
  now: number;
  marginMs?: number;
}

/**
 * Deleted records (a partition whose earliest offset is not 0) held events older than their first
 * retained record's timestamp plus the clock margin. A rebuild can only recount a range none of
 * them reached: without --since, the store must count nothing older than that (everything they
 * held has expired from it too); with --since, the rebuilt range must start after it (the older
 * periods are carried over from the current generation, not recounted).
 */
export function checkCoverage(input: CoverageInput): Coverage {
  const margin = input.marginMs ?? CLOCK_MARGIN_MS;
  const truncated = input.spans.filter((s) => s.low > 0);
  if (truncated.length === 0) return { ok: true };
  let reach = -Infinity;
  const lines: string[] = [];
  for (const s of truncated) {
    // Everything deleted and nothing retained: its records may be from any time up to now.
    const first = s.firstTimestamp ?? input.now;
    reach = Math.max(reach, first + margin);
    lines.push(
      `${partitionField(s.topic, s.partition)}: records before offset ${s.low} were deleted` +
        (s.firstTimestamp === null
          ? ' (none is retained)'
          : `; the first retained one is from ${iso(first)}`),
    );
  }
  const after = monthStart(monthOf(reach - 1) + 1);
  const suggestedSince = after <= input.now ? after : null;
  const suggestion =
    suggestedSince === null
      ? 'no --since can help before the next month starts'
      : `pass --since ${iso(suggestedSince)} (or later) to rebuild from then on and carry older periods over unchanged`;
  if (input.boundary === null) {
    if (input.oldestCounted === null || input.oldestCounted >= reach) return { ok: true };
    return {
      ok: false,
      suggestedSince,
      reasons: [
        ...lines,
        `the store still counts data from ${iso(input.oldestCounted)} on, older than ${iso(reach)}: ` +
          'a rebuild from the topics would lose what the deleted records counted',
        suggestion,
      ],
    };
  }
  if (input.boundary >= reach) return { ok: true };
  return {
    ok: false,
    suggestedSince,
    reasons: [
      ...lines,
      `--since starts the rebuild at ${iso(input.boundary)}, but deleted records may hold events up to ${iso(reach)}`,
      suggestion,
    ],
  };
}

/**
 * With --since, where each partition's replay starts (as the wm of g': the consumer starts at
 * wm + 1): at the first record from `boundary - margin` on, but never after the old generation's
 * wm + 1, so that every record the copy of the older periods may not have carried is replayed.
 */
export function startWatermarks(
  partitions: readonly { topic: string; partition: number; byTimestamp: number; sourceWm: number | null }[],
): { field: string; wm: number }[] {
  return partitions.map((p) => ({
    field: partitionField(p.topic, p.partition),
    wm: Math.min(p.byTimestamp, p.sourceWm === null ? 0 : p.sourceWm + 1) - 1,
  }));
}

/** Topics kept shorter than the month retention (+ the 60 days of slack infra gives them) lose months. */
export function retentionWarnings(
  topics: readonly { topic: string; retentionMs: number | null }[],
  monthRetentionMs: number,
): string[] {
  const needed = monthRetentionMs + 60 * DAY_MS;
  return topics.flatMap(({ topic, retentionMs }) =>
    retentionMs !== null && retentionMs >= 0 && retentionMs < needed
      ? [
          `warning: ${topic} keeps records ${Math.floor(retentionMs / DAY_MS)} days (retention.ms), less than the ` +
            `month retention + 60 days (${Math.floor(needed / DAY_MS)}): the oldest months cannot be recounted from it`,
        ]
      : [],
  );
}

export interface PlanDescription {
  source: number;
  target: number;
  spans: readonly PartitionSpan[];
  since: number | null;
  boundary: number | null;
  apis: number;
}

export function describePlan(p: PlanDescription): string[] {
  const records = p.spans.reduce((sum, s) => sum + Math.max(0, s.high - s.low), 0);
  const topics = [...new Set(p.spans.map((s) => s.topic))];
  const lines = [
    `rebuild counter generation ${p.source} into ${p.target} (queries keep reading ${p.source} until the switch)`,
    `  from ${topics.join(' and ')}: ${p.spans.length} partitions, up to ${records} retained records, ${p.apis} APIs`,
  ];
  if (p.boundary === null || p.since === null) {
    lines.push('  rebuilt: every period, from the earliest retained records');
  } else {
    if (p.boundary !== p.since)
      lines.push(`  --since ${iso(p.since)} rounds down to its month start (a month rollup cannot be split)`);
    lines.push(
      `  rebuilt: every hour, day and month from ${iso(p.boundary)} on, from the records since then`,
    );
    lines.push(
      `  carried over unchanged from generation ${p.source}: every bucket before ${iso(p.boundary)} ` +
        '(and what arrives for those periods while the rebuild runs)',
    );
  }
  return lines;
}
