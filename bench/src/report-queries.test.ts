import { describe, expect, it } from 'vitest';
import type { CannonRun } from './cannon';
import type { LoadRun, ScenarioResult } from './phases/queries';
import { latencyGoalMet, queryTables, roundTrips } from './report-queries';
import type { BenchResults } from './results';
import { summarize } from './stats';

const cannonRun = (latencies: number[], failureKinds: Record<string, number> = {}): CannonRun => ({
  connections: 1,
  seconds: 1,
  requests: latencies.length,
  requestsPerSecond: latencies.length,
  failures: Object.values(failureKinds).reduce((a, b) => a + b, 0),
  failureKinds,
  latencyMs: summarize(latencies),
});

const loadRun = (latencies: number[]): LoadRun => ({
  ...cannonRun(latencies),
  serviceCpuMsPerRequest: 0.5,
  redisUsecPerRequest: 80,
  redisRoundTripsPerRequest: 2,
  redisCommandsPerRequest: 5,
  sectionCache: { hits: 1, misses: 0, bytes: 10 },
  commandStats: [],
  slowLog: { total: 0, slowest: [] },
});

describe('#40 query report', () => {
  it('states p50 as a multiple of the bare round trip and judges the c=1 goal with it', () => {
    expect(roundTrips(2, 0.4)).toBe(5);
    expect(roundTrips(2, undefined)).toBeNaN();
    const fast = loadRun(Array(100).fill(1));
    expect(latencyGoalMet(fast, 2.5)).toBe(true);
    expect(latencyGoalMet(fast, 6)).toBe(false); // 1 ms, but six round trips
    expect(latencyGoalMet(loadRun(Array(100).fill(3)), 1)).toBe(false);
    expect(latencyGoalMet({ ...fast, failures: 1 }, 1)).toBe(false);
  });

  it('shows the calibration, the multiple, the round trips per request and the light-under-heavy rows', () => {
    const scenario: ScenarioResult = {
      name: 'api-30d-by-day-ends-now',
      title: 't',
      referenceP50Ms: 109,
      path: '/v1/analytics.getVerifications?apiId=medium',
      rows: 31,
      responseBytes: 100,
      precision: 'hour',
      edgeHours: 16,
      alone: { reads: 2, commands: 6 },
      runs: [loadRun(Array(100).fill(1.2))],
    };
    const r = {
      querySettings: { rateLimit: 300, rateWindowMs: 1000, maxConcurrent: 4, logLevel: 'info' },
      queryContext: { externalId: 'e', tags: ['a', 'b'], keyId: 'k', rootKeys: 67 },
      calibration: cannonRun(Array(100).fill(0.4)),
      healthRoundTrip: cannonRun(Array(100).fill(0.6)),
      queries: [scenario],
      lightUnderHeavy: [
        {
          heavyRootKeys: 1,
          heavyConnections: 10,
          lightPath: '/light',
          heavyPath: '/heavy',
          light: cannonRun(Array(100).fill(30)),
          heavy: cannonRun([], { 'HTTP 429': 7, 'HTTP 503': 4 }),
        },
      ],
    } as unknown as BenchResults;
    const text = queryTables(r).join('\n');
    expect(text).toContain('QUERY_RATE_LIMIT 300 per 1000 ms and QUERY_MAX_CONCURRENT 4');
    expect(text).toContain('rotates over 67 root keys');
    expect(text).toContain('p50 0.4 ms');
    expect(text).toContain('/health the same way: p50 0.6 ms (1.5×)');
    expect(text).toContain(
      '| api-30d-by-day-ends-now | 31 | 1.2 | 1.2 | 100 | 3× | 109 | yes (54.5) | yes |',
    );
    expect(text).toContain('reading 16–16 hours of the current UTC day');
    expect(text).toContain('| api-30d-by-day-ends-now | 0.5 | 80 | 2 / 5 | 2 / 6 | 1 / 0 |');
    expect(text).toContain('| 10 on 1 root key | 30 | 30 | 100 | 0 × 200, HTTP 429 x7, HTTP 503 x4 | NO |');
  });
});
