/**
 * An API's billing zones (docs/api.md#billing-zones, libs/core zone-edges.ts): the list `<p>:apibz:<apiId>` of
 * IANA names, append-only so that a zone keeps its number n = position + 1 (the edge buckets `z<n>d|m` name it),
 * at most MAX_BILLING_ZONES; and the generation's `bz` hash, from when each zone's edges are complete.
 * Names are checked by the caller (libs/core checkTimeZone) and stored as it spells them.
 */
import { MAX_BILLING_ZONES } from '@va/core';
import type { RedisClient } from './connection';
import { apiKeys, globalKeys, type KeySpace } from './keys';

export type DeclareBillingZoneResult = { n: number; added: boolean } | { full: true };

/*
 * One script, so that two declarations at once can neither list a zone twice nor pass the bound (a WATCH
 * retry loop would do too, with more round trips). Replies {n, added}, or {0, 0} when the list is full.
 */
const DECLARE = `
local zones = redis.call('LRANGE', KEYS[1], 0, -1)
for i, zone in ipairs(zones) do
  if zone == ARGV[1] then return { i, 0 } end
end
if #zones >= tonumber(ARGV[2]) then return { 0, 0 } end
return { redis.call('RPUSH', KEYS[1], ARGV[1]), 1 }
`;

/** Declares a billing zone of an API (idempotent: a zone already listed answers its number, added false). */
export async function declareBillingZone(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  zone: string,
): Promise<DeclareBillingZoneResult> {
  const key = globalKeys(prefix).apiBillingZones(apiId);
  const [n, added] = (await redis.eval(DECLARE, 1, key, zone, MAX_BILLING_ZONES)) as [number, number];
  return n === 0 ? { full: true } : { n, added: added === 1 };
}

/** The API's billing zones: index i holds zone number i + 1. */
export async function billingZonesOf(redis: RedisClient, prefix: string, apiId: string): Promise<string[]> {
  return redis.lrange(globalKeys(prefix).apiBillingZones(apiId), 0, -1);
}

/**
 * Per zone number, the unix ms from which the generation counted every event of the zone's edges (`bz`, set
 * by applyApiBatch.lua with the counts: docs/design.md "Billing zones"): a reader uses an edge only when its
 * window starts there or later. A zone absent: not counted yet in this generation.
 */
export async function billingZoneSince(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
): Promise<Map<number, number>> {
  const fields = await redis.hgetall(apiKeys(space, apiId).billingZoneSince);
  return new Map(Object.entries(fields).map(([n, ms]) => [Number(n), Number(ms)]));
}
