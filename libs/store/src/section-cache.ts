/**
 * Decoded sealed sections kept between queries (docs/store-v2.md "Reading"). A section is
 * immutable under its version (the compactor writes a new version whenever it rewrites one), so
 * an entry is checked, not trusted: readCounts sends the cached version bytes with every read and
 * Redis returns the section only when its version differs (commands/readBuckets.lua), in the same
 * atomic call as the rest of the bucket. The cache thus never serves counts Redis no longer holds.
 *
 * Keyed by the section's Redis key (prefix, generation, API, bucket, cube); bounded by the bytes of
 * the decoded typed arrays (lru-cache's maxSize: least recently used entries go first). A section
 * larger than the whole bound is used for its query and not kept.
 */
import { LRUCache } from 'lru-cache';
import type { RollupChildren } from './rollup-children';
import type { SectionView } from './read-sections';

export interface CachedSection {
  /** The 8 header bytes holding the version (codec.ts SECTION_VERSION_OFFSET). */
  version: Buffer;
  section: SectionView;
}

/**
 * The minutes of one hour a read split an edge with (read/minute-hours.ts), as Redis sent them with the
 * hour's version: the same while the hour keeps that version and has no delta or stage (readBuckets.lua "W").
 */
export interface CachedMinutes {
  version: Buffer;
  /** Each minute hash's text, in the order of the read's minutes. */
  texts: readonly string[];
}

/** What readCounts needs of a cache: a fake in tests, SectionCache in the service. */
export interface SectionStore {
  get(key: string): CachedSection | undefined;
  set(key: string, entry: CachedSection): void;
  /** Counted by readCounts: a section Redis did not send because the cached version is current. */
  hit(): void;
  /** A section Redis sent (none cached, or an older version). */
  miss(): void;
  /** What a read recorded of a rollup's children (rollup-children.ts), by the key readCounts gives. */
  recorded(key: string): RollupChildren | undefined;
  setRecorded(key: string, children: RollupChildren): void;
  /** Counted by readCounts: a month's days summed from cached sections after one check. */
  monthHit(): void;
  /** Counted by readCounts: a day's hours summed from cached sections after one check. */
  dayHit(): void;
  /** The minutes kept under `key` (read/minute-hours.ts), and keeping them. */
  minutes(key: string): CachedMinutes | undefined;
  setMinutes(key: string, entry: CachedMinutes): void;
  /** Counted by readCounts: an hour's minutes used from the cache after one check of the hour. */
  minuteHourHit(): void;
}

/** Bytes an entry holds: its typed arrays, plus a small fixed cost per entry. */
export function sectionBytes(section: SectionView): number {
  let bytes = 200 + section.counts.byteLength;
  for (const column of section.dims) bytes += column.byteLength;
  return bytes;
}

export interface SectionCacheStats {
  hits: number;
  misses: number;
  monthHits: number;
  dayHits: number;
  minuteHourHits: number;
  entries: number;
  bytes: number;
}

/** What one request's reads used of a cache: sections it did not need sent (hits) and ones Redis sent. */
export interface CacheUse {
  hits: number;
  misses: number;
}

/** A cache as one request sees it: the shared `store`, its hits and misses also counted for this request alone. */
export function countingStore(store: SectionStore): SectionStore & { use(): CacheUse } {
  const use: CacheUse = { hits: 0, misses: 0 };
  /** The shared store's count, and this request's `field` too. */
  const counted = (field: keyof CacheUse, count: () => void) => () => {
    use[field]++;
    count();
  };
  return {
    get: (key) => store.get(key),
    set: (key, entry) => store.set(key, entry),
    hit: counted('hits', () => store.hit()),
    miss: counted('misses', () => store.miss()),
    recorded: (key) => store.recorded(key),
    setRecorded: (key, children) => store.setRecorded(key, children),
    monthHit: counted('hits', () => store.monthHit()),
    dayHit: counted('hits', () => store.dayHit()),
    minutes: (key) => store.minutes(key),
    setMinutes: (key, entry) => store.setMinutes(key, entry),
    minuteHourHit: counted('hits', () => store.minuteHourHit()),
    use: () => ({ ...use }),
  };
}

/** Several caches' figures added up (the query service's threads each have one). */
export function sumCacheStats(all: Iterable<SectionCacheStats>): SectionCacheStats {
  const total: SectionCacheStats = {
    hits: 0,
    misses: 0,
    monthHits: 0,
    dayHits: 0,
    minuteHourHits: 0,
    entries: 0,
    bytes: 0,
  };
  for (const s of all) {
    for (const field of Object.keys(total) as (keyof SectionCacheStats)[]) total[field] += s[field];
  }
  return total;
}

/**
 * Rollups (months, days) whose children's versions a cache records. An entry is a map of at most 31
 * versions, under 2 KB (its sections stay in the byte-bounded cache, and a rollup whose children's
 * sections were evicted is read child by child again): at most ~30 MB per thread, a few MB in use,
 * since a 30-day zone read records two months and about 31 days per cube.
 */
const RECORDS = 16_384;

/**
 * Characters of minute texts kept (CachedMinutes): a zone's split edges within the minute retention are a
 * few hours' minutes per query (~30 KB each for the medium tenant's f minutes), so a few MB in use.
 */
const MINUTE_CHARS = 8 << 20;

const minuteChars = (entry: CachedMinutes): number => {
  let chars = 64;
  for (const text of entry.texts) chars += text.length;
  return chars;
};

export class SectionCache implements SectionStore {
  private readonly lru: LRUCache<string, CachedSection> | null;
  private readonly records: LRUCache<string, RollupChildren> | null;
  private readonly minuteTexts: LRUCache<string, CachedMinutes> | null;
  hits = 0;
  misses = 0;
  monthHits = 0;
  dayHits = 0;
  minuteHourHits = 0;

  /** maxBytes 0 keeps nothing (every read sends the section). */
  constructor(readonly maxBytes: number) {
    this.lru =
      maxBytes > 0
        ? new LRUCache<string, CachedSection>({
            maxSize: maxBytes,
            sizeCalculation: (entry) => sectionBytes(entry.section),
          })
        : null;
    this.records = maxBytes > 0 ? new LRUCache<string, RollupChildren>({ max: RECORDS }) : null;
    this.minuteTexts =
      maxBytes > 0
        ? new LRUCache<string, CachedMinutes>({ maxSize: MINUTE_CHARS, sizeCalculation: minuteChars })
        : null;
  }

  get(key: string): CachedSection | undefined {
    return this.lru?.get(key);
  }

  set(key: string, entry: CachedSection): void {
    if (!this.lru || sectionBytes(entry.section) > this.maxBytes) return;
    this.lru.set(key, entry);
  }

  hit(): void {
    this.hits++;
  }

  miss(): void {
    this.misses++;
  }

  recorded(key: string): RollupChildren | undefined {
    return this.records?.get(key);
  }

  setRecorded(key: string, children: RollupChildren): void {
    this.records?.set(key, children);
  }

  monthHit(): void {
    this.monthHits++;
  }

  dayHit(): void {
    this.dayHits++;
  }

  minutes(key: string): CachedMinutes | undefined {
    return this.minuteTexts?.get(key);
  }

  setMinutes(key: string, entry: CachedMinutes): void {
    if (minuteChars(entry) <= MINUTE_CHARS) this.minuteTexts?.set(key, entry);
  }

  minuteHourHit(): void {
    this.minuteHourHits++;
  }

  stats(): SectionCacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      monthHits: this.monthHits,
      dayHits: this.dayHits,
      minuteHourHits: this.minuteHourHits,
      entries: this.lru?.size ?? 0,
      bytes: this.lru?.calculatedSize ?? 0,
    };
  }
}
