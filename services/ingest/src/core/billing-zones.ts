/**
 * Billing zones in the worker (docs/design.md "Billing zones: zone edges counted at ingest"): which zones each
 * API declared, as the EdgeFinders that count its events' edges (libs/core zone-edges.ts; classify.ts counts),
 * cached at most BILLING_ZONE_CACHE_MS.
 *
 * A worker counts an API's events with a zone list read at most BILLING_ZONE_CACHE_MS ago: a zone declared since
 * is missing from its batches for that long. applyApiBatch.lua makes that safe with the counts: it records a
 * zone's `since` when a batch first counts it (0 for the API's first batch), and moves it past the events of any
 * batch that did not count it (docs/design.md "Billing zones").
 */
import { EdgeFinder, type ZoneNumber } from '@va/core';
import type { StorePort } from './ports';

/** How long a worker counts with an API's zone list before reading it again. */
export const BILLING_ZONE_CACHE_MS = 60_000;

interface Cached {
  zones: readonly string[];
  finders: EdgeFinder[];
  readAt: number;
}

/** The zones of each API, as EdgeFinders (index n - 1), read at most BILLING_ZONE_CACHE_MS ago. */
export class BillingZoneCache {
  private apis = new Map<string, Cached>();
  /** APIs whose list is being read again in the background (refreshAging). */
  private refreshing = new Set<string>();

  clear(): void {
    this.apis = new Map();
    this.refreshing = new Set();
  }

  /** The API's edge finders (empty: no zones), or undefined when unknown or older than the cache bound. */
  findersOf(apiId: string, now: number): EdgeFinder[] | undefined {
    const cached = this.apis.get(apiId);
    return cached !== undefined && now - cached.readAt < BILLING_ZONE_CACHE_MS ? cached.finders : undefined;
  }

  /** What the store answered for an API at clock `readAt` (finders kept when the list did not change). */
  set(apiId: string, zones: readonly string[], readAt: number): void {
    const cached = this.apis.get(apiId);
    const same = cached !== undefined && cached.zones.length === zones.length;
    const finders = same
      ? cached.finders
      : zones.map((zone, i) => new EdgeFinder(zone, (i + 1) as ZoneNumber));
    this.apis.set(apiId, { zones, finders, readAt });
  }

  /**
   * Reads again, in the background (one pipelined round trip, not awaited), the lists of these APIs that are
   * older than half the cache bound and not expired yet: a busy API's list is renewed before it expires, so its
   * events are never deferred for it (only after a quiet minute). `now`, the clock before the read, is the
   * list's age: what it says holds at least from then on.
   */
  refreshAging(store: Pick<StorePort, 'readBillingZones'>, apiIds: Iterable<string>, now: number): void {
    const aging: string[] = [];
    for (const apiId of apiIds) {
      const age = now - (this.apis.get(apiId)?.readAt ?? -Infinity);
      if (age >= BILLING_ZONE_CACHE_MS / 2 && age < BILLING_ZONE_CACHE_MS && !this.refreshing.has(apiId))
        aging.push(apiId);
    }
    if (aging.length === 0) return;
    const [apis, refreshing] = [this.apis, this.refreshing];
    for (const apiId of aging) refreshing.add(apiId);
    void store
      .readBillingZones(aging)
      .then(
        // Not after a reset (clear): that cache starts afresh.
        (zones) => void (this.apis === apis && aging.forEach((apiId, n) => this.set(apiId, zones[n]!, now))),
        () => undefined, // the list expires, and the next batch reads it with its deferred events
      )
      .finally(() => aging.forEach((apiId) => refreshing.delete(apiId)));
  }
}
