import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from './phases/queries';
import { zoneTable } from './report-zones';
import { ZONE_CHECKS } from './scenarios';
import { summarize } from './stats';

const result = (name: string, p50: number): ScenarioResult =>
  ({
    name,
    runs: [{ connections: 1, latencyMs: summarize(Array(10).fill(p50)) }],
  }) as unknown as ScenarioResult;

describe('time zones check (#43)', () => {
  it("states each zone scenario's p50 against its UTC scenario's and judges it at 1.2×", () => {
    const text = zoneTable([
      result('api-30d-by-day', 1),
      result('api-30d-by-day-tz-new-york', 1.2),
      result('api-30d-by-day-tz-kolkata', 2.5),
      result('year-by-month-ends-now', 2),
      result('year-by-month-tz-kolkata-ends-now', 2.2),
    ]).join('\n');
    expect(text).toContain('| api-30d-by-day | America/New_York | 1 | 1.2 | 1.2 | ≤ 1.2× | yes |');
    expect(text).toContain('| api-30d-by-day | Asia/Kolkata | 1 | 2.5 | 2.5 | ≤ 1.2× | NO |');
    expect(text).toContain('| year-by-month-ends-now | Asia/Kolkata | 2 | 2.2 | 1.1 | ≤ 1.2× | yes |');
    // A pair of which the run has one scenario only is left out.
    expect(text).not.toContain('year-by-month-ends-now | America/New_York');
    expect(
      text.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| scenario')),
    ).toHaveLength(3);
  });

  it('is absent from a run without a zone scenario', () => {
    expect(zoneTable([result('api-30d-by-day', 1)])).toEqual([]);
    expect(ZONE_CHECKS.length).toBeGreaterThan(0);
  });
});
