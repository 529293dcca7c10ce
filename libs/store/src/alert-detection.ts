/**
 * What applyApiBatch needs to detect a batch's crossings (docs/alerts.md "Detection"), built by the
 * ingest worker's pure core and written by the script in the same atomic step as the counts.
 *
 * Rules that count the same thing (scope, outcomes, tags, period: libs/core alertCounterId) share one
 * counter per period: a hash `<p>:g<g>:{a}:alerts:n:<counterId>:<periodStart>`, member -> count, so a
 * batch costs one HINCRBY per counter and scope member however many rules share it. HINCRBY answers the
 * new count; every level L with old < L <= new is crossed, for each rule with that level. Which rules have a
 * level is not sent with every call (10,000 rules' ids would be ~1 MB per call): the worker writes the API's
 * level table once per rules version (`<p>:{a}:alerts:lv:<version>`, field `<counterId>:<level>` -> the rules'
 * ids; writeAlertLevels), and the script reads a field only when its level is crossed. A crossing is
 * appended to the API's crossings stream only when it joins the API's set of recorded crossings of the
 * period (`<p>:{a}:alerts:x:<period>:<periodStart>`, member `ruleId|level|member`, not generation-scoped),
 * so that a replayed batch, a retry or a rebuild (which counts into a new generation from zero) never
 * appends a crossing twice. Counters and sets expire with their period's own rollup (the day or month
 * bucket); the worker counts no event of a period whose rollup is gone.
 */
import type { AlertPeriod } from '@va/contracts';
import type { RedisClient } from './connection';
import { alertKeys } from './keys';
import { execPipeline } from './pipeline';

/** The rules of each counter level of an API at one rules version: "<counterId>:<level>" -> rule ids. */
export type AlertLevelTable = ReadonlyMap<string, readonly string[]>;

/** The level table's field of a counter's level. */
export const levelField = (counterId: string, level: number): string => `${counterId}:${level}`;

/**
 * How long a level table is kept after it was written. A worker writes it whenever it reads the rules; a
 * script that finds no table for its version answers `rules`, and the worker reads them and writes it again.
 */
export const LEVEL_TABLE_TTL_MS = 86_400_000;

/** One counter's increments of a batch: what its rules count, in one period. */
export interface AlertCounterIncrements {
  counterId: string;
  period: AlertPeriod;
  /** Unix ms of the period's start (libs/core alertPeriodStart). */
  periodStart: number;
  /** Unix ms at which the counter and the period's recorded crossings may go. */
  expireAt: number;
  /** The levels of the rules sharing the counter, ascending and distinct (their rules: the level table). */
  levels: readonly number[];
  /** scope member ('' for a whole-API rule) -> increment (> 0) */
  members: ReadonlyMap<string, number>;
}

export interface AlertIncrements {
  /** The version of the rules these were computed with: the script refuses another (status `rules`). */
  rulesVersion: number;
  /** The batch's clock: detectedAt of the crossings. */
  now: number;
  counters: readonly AlertCounterIncrements[];
}

/** Writes the API's level table of rules version `version` (the same content for one version, whoever writes it). */
export async function writeAlertLevels(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  version: number,
  table: AlertLevelTable,
): Promise<void> {
  if (table.size === 0) return;
  const key = alertKeys(prefix, apiId).levels(version);
  const multi = redis.multi();
  const fields = [...table].map(([field, ruleIds]) => [field, ruleIds.join(' ')]);
  for (let i = 0; i < fields.length; i += 1000) multi.hset(key, ...fields.slice(i, i + 1000).flat());
  multi.pexpire(key, LEVEL_TABLE_TTL_MS);
  await execPipeline(multi);
}
