/**
 * The "time zones" check of the report (#43): each zone scenario's p50 at c=1 as a multiple of its UTC
 * scenario's in the same run (the same question in the zone's calendar), goal at most ZONE_MAX_RATIO.
 */
import type { ScenarioResult } from './phases/queries';
import { mark, ms, table } from './report-format';
import { ZONE_CHECKS, type ZoneCheck } from './scenarios';
import { round } from './stats';

const p50Of = (queries: readonly ScenarioResult[], name: string): number | undefined =>
  queries.find((q) => q.name === name)?.runs[0]?.latencyMs.p50;

/** The table's lines; none when the run has no pair of a zone scenario and its UTC one. */
export function zoneTable(
  queries: readonly ScenarioResult[],
  checks: readonly ZoneCheck[] = ZONE_CHECKS,
): string[] {
  const rows = checks.flatMap((check) => {
    const utc = p50Of(queries, check.utc);
    const zoned = p50Of(queries, check.zoned);
    if (utc === undefined || zoned === undefined) return [];
    const ratio = zoned / utc;
    return [
      [
        check.utc,
        check.zone,
        ms(utc),
        ms(zoned),
        String(round(ratio)),
        `≤ ${check.maxRatio}×`,
        mark(ratio <= check.maxRatio),
      ],
    ];
  });
  if (rows.length === 0) return [];
  return [
    'Time zones (p50 at c=1 of each zone scenario, `-tz-<city>`, against its UTC scenario in the same run):',
    '',
    ...table(['scenario', 'zone', 'UTC p50 ms', 'zone p50 ms', 'ratio', 'goal', 'met'], rows),
    '',
  ];
}
