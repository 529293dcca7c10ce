/**
 * The alerts run's figures from its raw measurements (pure): the A/B comparison of ingest throughput
 * without and with the rules, and crossing-to-webhook latencies from the crossings' send times and the
 * webhooks' arrivals.
 */
import type { IngestResult } from '../phases/ingest';
import { percentile, summarize, type Summary } from '../stats';
import type { TimedCrossing } from './crossings';

/** Goals of the issue: ingest with 10,000 rules at least this share of ingest without; webhook p95. */
export const ALERT_GOALS = { throughputRatio: 0.85, webhookP95Ms: 5_000 };

export type AbLabel = 'A' | 'B';

export interface AbRun {
  label: AbLabel;
  /** Rules the run's prefix held (0 for A). */
  rules: number;
  ingest: IngestResult;
  /** Entries in the crossings streams after the run. */
  crossings: number;
}

export interface AbComparison {
  /** Mean events/s of the runs of each label. */
  a: number;
  b: number;
  /** b / a. */
  ratio: number;
  /** B over the A before it, per pair (A1 B1, A2 B2, ...). */
  pairRatios: number[];
}

const mean = (values: number[]): number => values.reduce((s, v) => s + v, 0) / values.length;

export function compareAb(runs: readonly AbRun[]): AbComparison {
  const rate = (label: AbLabel) => runs.filter((r) => r.label === label).map((r) => r.ingest.eventsPerSecond);
  const a = mean(rate('A'));
  const b = mean(rate('B'));
  const pairRatios: number[] = [];
  runs.forEach((run, n) => {
    const before = runs[n - 1];
    if (run.label === 'B' && before?.label === 'A')
      pairRatios.push(run.ingest.eventsPerSecond / before.ingest.eventsPerSecond);
  });
  return { a, b, ratio: b / a, pairRatios };
}

/** Microseconds of CPU per event applied. */
export const usPerEvent = (cpuSeconds: number, events: number): number => (cpuSeconds * 1e6) / events;

export interface LatencySummary extends Summary {
  p95: number;
}

export function latencySummary(values: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  return { ...summarize(sorted), p95: percentile(sorted, 95) };
}

export interface WebhookMatch {
  /** Crossing-to-webhook ms of every expected crossing sent at or after `countFrom` that arrived. */
  latencies: number[];
  /** The same crossings split at their detectedAt: send to detection (ingest), detection to arrival (delivery). */
  detectMs: number[];
  deliverMs: number[];
  /** Expected crossings no webhook arrived for (alert ids, at most 20 listed). */
  missing: number;
  missingIds: string[];
  /** Webhook ids received that no crossing made. */
  unexpected: number;
  /** Distinct expected ids received. */
  received: number;
}

/**
 * Matches the webhooks' first arrivals (webhook-id -> unix ms) to the expected crossings; `detected` holds
 * the detectedAt the webhooks carried.
 */
export function matchWebhooks(
  crossings: ReadonlyMap<string, TimedCrossing>,
  arrivals: ReadonlyMap<string, number>,
  detected: ReadonlyMap<string, number>,
  countFrom: number,
): WebhookMatch {
  const latencies: number[] = [];
  const detectMs: number[] = [];
  const deliverMs: number[] = [];
  const missingIds: string[] = [];
  let missing = 0;
  for (const [id, crossing] of crossings) {
    const at = arrivals.get(id);
    if (at === undefined) {
      missing++;
      if (missingIds.length < 20) missingIds.push(id);
    } else if (crossing.sentAt >= countFrom) {
      latencies.push(at - crossing.sentAt);
      const detectedAt = detected.get(id);
      if (detectedAt !== undefined) {
        detectMs.push(detectedAt - crossing.sentAt);
        deliverMs.push(at - detectedAt);
      }
    }
  }
  let unexpected = 0;
  for (const id of arrivals.keys()) if (!crossings.has(id)) unexpected++;
  return {
    latencies,
    detectMs,
    deliverMs,
    missing,
    missingIds,
    unexpected,
    received: crossings.size - missing,
  };
}
