/**
 * Alert rules of an API (docs/alerts.md): one hash in the API's slot, ruleId -> the rule as JSON, and a
 * version that every create and delete increments, so that a writer that caches the rules (the ingest
 * worker's detection) notices a change by reading one string. Rules are not generation-scoped: a rebuild
 * counts with the same rules and finds the same alert ids.
 */
import type { AlertRule } from '@va/contracts';
import type { RedisClient } from './connection';
import { alertGlobalKeys, alertKeys } from './keys';
import { execPipeline } from './pipeline';

export interface AlertRules {
  /** 0 before the API's first rule. */
  version: number;
  /** Oldest first (createdAt, then ruleId). */
  rules: AlertRule[];
}

const byAge = (a: AlertRule, b: AlertRule): number =>
  a.createdAt - b.createdAt || (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0);

function parseRules(values: readonly string[]): AlertRule[] {
  return values.map((value) => JSON.parse(value) as AlertRule).sort(byAge);
}

/**
 * Stores a new rule (its id made by the caller). The API joins the set of APIs with rules first, so that
 * delivery reads the crossings of every API that may have some (the set is in another slot).
 */
export async function createAlertRule(redis: RedisClient, prefix: string, rule: AlertRule): Promise<number> {
  const keys = alertKeys(prefix, rule.apiId);
  await redis.sadd(alertGlobalKeys(prefix).apis, rule.apiId);
  const replies = await execPipeline(
    redis.multi().hset(keys.rules, rule.ruleId, JSON.stringify(rule)).incr(keys.rulesVersion),
  );
  return Number(replies[1]);
}

/** How many rules the API has (the create route's bound, MAX_ALERT_RULES_PER_API). */
export async function countAlertRules(redis: RedisClient, prefix: string, apiId: string): Promise<number> {
  return redis.hlen(alertKeys(prefix, apiId).rules);
}

/** The API's rules and their version, read atomically (one slot, one MULTI). */
export async function readAlertRules(redis: RedisClient, prefix: string, apiId: string): Promise<AlertRules> {
  const keys = alertKeys(prefix, apiId);
  const [version, values] = await execPipeline(redis.multi().get(keys.rulesVersion).hvals(keys.rules));
  return { version: Number(version ?? 0), rules: parseRules(values as string[]) };
}

/** The version of the API's rules alone (0 before its first rule): what a cache compares. */
export async function readAlertRulesVersion(
  redis: RedisClient,
  prefix: string,
  apiId: string,
): Promise<number> {
  return Number((await redis.get(alertKeys(prefix, apiId).rulesVersion)) ?? 0);
}

/** One rule, or null when the API has no rule of that id. */
export async function findAlertRule(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  ruleId: string,
): Promise<AlertRule | null> {
  const value = await redis.hget(alertKeys(prefix, apiId).rules, ruleId);
  return value === null ? null : (JSON.parse(value) as AlertRule);
}

/** Deletes a rule; false when the API had no rule of that id (the version moves only on a deletion). */
export async function deleteAlertRule(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  ruleId: string,
): Promise<boolean> {
  const keys = alertKeys(prefix, apiId);
  const [deleted] = await execPipeline(redis.multi().hdel(keys.rules, ruleId));
  if (deleted !== 1) return false;
  await redis.incr(keys.rulesVersion);
  return true;
}
