/**
 * Billing zones in the worker (docs/design.md "Billing zones: zone edges counted at ingest"): which zones each
 * API declared (cached at most BILLING_ZONE_CACHE_MS), the edges an event is counted in (libs/core
 * zone-edges.ts EdgeFinder), and from when a generation counts each zone (`since`).
 *
 * Why the cache bound makes `since` safe: a worker counts an API's events only with a zone list read at most
 * BILLING_ZONE_CACHE_MS before its batch's clock, and an event lies at most MAX_FUTURE_MS after the clock it
 * reached Kafka at. So a zone declared after some worker's read is missing there only for events before that
 * read + BILLING_ZONE_CACHE_MS + MAX_FUTURE_MS; the first worker that counts the zone sets since to its own
 * clock read after it learned of the zone (later than the declaration, so later than any such read) + the same
 * margin.
 */
import { EdgeFinder, type ZoneNumber } from '@va/core';
import type { KeySpace, TupleCounter } from '@va/store';
import { MAX_FUTURE_MS } from '../decode';
import type { EventCodes } from './classify';
import type { StorePort } from './ports';

/** How long a worker counts with an API's zone list before reading it again. */
export const BILLING_ZONE_CACHE_MS = 60_000;

/** The `since` of a zone first counted in a batch of clock `now` (see the header). */
export const billingZoneSince = (now: number): number => now + BILLING_ZONE_CACHE_MS + MAX_FUTURE_MS;

/** A zone's since to record (StorePort.markBillingZonesSince). */
export interface ZoneSince {
  apiId: string;
  n: number;
  since: number;
}

interface Cached {
  zones: readonly string[];
  finders: EdgeFinder[];
  readAt: number;
}

/** The zones of each API, as EdgeFinders (index n - 1), read at most BILLING_ZONE_CACHE_MS ago. */
export class BillingZoneCache {
  private apis = new Map<string, Cached>();
  /** "<generation>|<apiId>|<n>": since recorded by this worker (HSETNX: once is enough). */
  private recorded = new Set<string>();
  /** APIs whose list is being read again in the background (refreshAging). */
  private refreshing = new Set<string>();

  clear(): void {
    this.apis = new Map();
    this.recorded = new Set();
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

  /**
   * The zones counted for these APIs whose since this worker has not recorded in the generation. `now`: a clock
   * read after the lists were (so later than any declaration they show: the header's argument).
   */
  sincesToRecord(generation: number, counted: Iterable<[string, TupleCounter]>, now: number): ZoneSince[] {
    const out: ZoneSince[] = [];
    for (const [apiId, counter] of counted) {
      const zones = this.apis.get(apiId)?.zones.length ?? 0;
      if (zones === 0 || counter.size === 0) continue;
      for (let n = 1; n <= zones; n++) {
        if (!this.recorded.has(`${generation}|${apiId}|${n}`))
          out.push({ apiId, n, since: billingZoneSince(now) });
      }
    }
    return out;
  }

  /** Records these sinces in the store (HSETNX: an older one stays), then remembers they are there. */
  async record(
    store: Pick<StorePort, 'markBillingZonesSince'>,
    space: KeySpace,
    sinces: readonly ZoneSince[],
  ): Promise<void> {
    await store.markBillingZonesSince(space, sinces);
    for (const { apiId, n } of sinces) this.recorded.add(`${space.generation}|${apiId}|${n}`);
  }
}

/** Counts a countable event in every edge of its API's zones whose window holds its time. */
export function countEdges(
  counter: TupleCounter,
  time: number,
  o: number,
  codes: EventCodes,
  finders: EdgeFinder[],
) {
  for (const finder of finders) {
    for (const edge of finder.at(time)) counter.addEdge(edge.res, edge.index, codes.k, codes.i, codes.s, o);
  }
}
