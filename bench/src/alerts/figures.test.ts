import { describe, expect, it } from 'vitest';
import type { IngestResult } from '../phases/ingest';
import type { TimedCrossing } from './crossings';
import { compareAb, latencySummary, matchWebhooks, usPerEvent, type AbLabel } from './figures';

const run = (label: AbLabel, eventsPerSecond: number) => ({
  label,
  rules: label === 'A' ? 0 : 10_000,
  ingest: { eventsPerSecond } as IngestResult,
  crossings: 0,
});

const crossing = (alertId: string, sentAt: number): TimedCrossing => ({
  alertId,
  ruleId: 'rule_0',
  member: 'm',
  periodStart: 0,
  level: 1,
  sentAt,
});

describe('compareAb', () => {
  it('compares the mean of the B runs to the mean of the A runs, and each B to the A before it', () => {
    const ab = compareAb([run('A', 100), run('B', 80), run('A', 120), run('B', 90)]);
    expect(ab).toEqual({ a: 110, b: 85, ratio: 85 / 110, pairRatios: [0.8, 0.75] });
  });
});

describe('latencySummary', () => {
  it('adds p95 to the nearest-rank summary', () => {
    const s = latencySummary(Array.from({ length: 100 }, (_, n) => 100 - n));
    expect(s).toMatchObject({ count: 100, p50: 50, p90: 90, p95: 95, p99: 99, max: 100 });
  });
});

describe('matchWebhooks', () => {
  it('times the expected crossings sent after the warm-up, split at detection, and counts the missing and the unexpected', () => {
    const crossings = new Map(
      [crossing('a', 1_000), crossing('b', 5_000), crossing('c', 6_000), crossing('d', 7_000)].map((c) => [
        c.alertId,
        c,
      ]),
    );
    const arrivals = new Map([
      ['a', 1_500],
      ['b', 5_700],
      ['c', 6_100],
      ['x', 9_000],
    ]);
    const detected = new Map([
      ['b', 5_200],
      ['c', 6_050],
    ]);
    expect(matchWebhooks(crossings, arrivals, detected, 5_000)).toEqual({
      latencies: [700, 100],
      detectMs: [200, 50],
      deliverMs: [500, 50],
      missing: 1,
      missingIds: ['d'],
      unexpected: 1,
      received: 3,
    });
  });
});

describe('usPerEvent', () => {
  it('is microseconds of CPU per event', () => {
    expect(usPerEvent(2, 1_000_000)).toBe(2);
  });
});
