/**
 * What authentication reads from Redis, kept in memory for at most QUERY_AUTH_CACHE_MS (at most 1 s):
 * root-key records (with revokedAt), read tokens' deny-list flags and APIs' owners with their default time
 * zones. A revocation (or a changed default zone) therefore reaches every query service within that delay
 * (docs/api.md#auth, docs/api.md#time-zones): an entry's age
 * counts from before the read that filled it was sent, so a read racing a revocation expires in time.
 * Only what exists is kept: an unknown root key or API is read again on the next request (a key or
 * API created a moment ago is not refused for a second, and random tokens cannot fill the cache).
 * Each map holds at most `maxEntries` (the oldest entry goes first).
 */
import type { RootKeyRecord } from '@va/store';

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number,
    private readonly maxEntries: number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > this.clock()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `value` until `readSince` (the clock before the read was sent) + the TTL. */
  set(key: string, value: V, readSince: number): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: readSince + this.ttlMs });
  }
}

/** What a query needs of its API: whose it is and the calendar of queries without timeZone. */
export interface ApiRecord {
  workspaceId: string;
  /** The default time zone (an IANA name); null when none is set (UTC). */
  timeZone: string | null;
  /** The billing zones (IANA names), zone n at position n - 1 (docs/api.md#billing-zones). */
  billingZones: readonly string[];
}

export interface AuthCache {
  /** By root key hash. */
  rootKeys: TtlCache<RootKeyRecord>;
  /** By read token id: whether it is on the deny-list. */
  deniedTokens: TtlCache<boolean>;
  /** By API id: the workspace owning it and its default time zone. */
  apis: TtlCache<ApiRecord>;
  /** Monotonic ms, the cache's clock (not the service's request clock, which tests may fix). */
  clock: () => number;
}

export function authCache(ttlMs: number, maxEntries = 10_000): AuthCache {
  const clock = () => performance.now();
  return {
    rootKeys: new TtlCache(ttlMs, clock, maxEntries),
    deniedTokens: new TtlCache(ttlMs, clock, maxEntries),
    apis: new TtlCache(ttlMs, clock, maxEntries),
    clock,
  };
}
