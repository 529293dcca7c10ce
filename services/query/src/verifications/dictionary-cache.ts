/**
 * Dictionaries per (key prefix, generation, API), kept in memory between requests: they are
 * append-only, so a cached copy is only possibly short (a reload after a Redis that lost its
 * last writes is ReadDictionaries' business), and each request loads just what was appended
 * since.
 *
 * Bounded by the number of dictionary entries held over all APIs (QUERY_DICTIONARY_CACHE_ENTRIES;
 * an entry is one keyId, identity or tag set, a few hundred bytes at most with its indexes): when
 * an API is taken from the cache, the least recently used other APIs are dropped until the rest
 * fits. The API in use is never dropped, so the bound can be exceeded by what one API loads.
 */
import { DICTIONARIES, ReadDictionaries, type KeySpace, type RedisClient } from '@va/store';

export interface DictionaryCacheOptions {
  /** Entries over all cached APIs (default 2,000,000). */
  maxEntries?: number;
}

const sizeOf = (dicts: ReadDictionaries): number => DICTIONARIES.reduce((sum, d) => sum + dicts.size(d), 0);

export class DictionaryCache {
  /** Map order is the recency order: the first entry is the least recently used. */
  private readonly byApi = new Map<string, ReadDictionaries>();
  private readonly maxEntries: number;

  constructor(
    private readonly redis: RedisClient,
    options: DictionaryCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 2_000_000;
  }

  /** APIs cached. */
  get apis(): number {
    return this.byApi.size;
  }

  /** Dictionary entries loaded over all cached APIs. */
  get entries(): number {
    let n = 0;
    for (const dicts of this.byApi.values()) n += sizeOf(dicts);
    return n;
  }

  get(space: KeySpace, apiId: string): ReadDictionaries {
    const id = `${space.prefix}\n${space.generation}\n${apiId}`;
    let dicts = this.byApi.get(id);
    if (dicts)
      this.byApi.delete(id); // re-inserted below: now the most recent
    else dicts = new ReadDictionaries(this.redis, space, apiId);
    this.byApi.set(id, dicts);
    this.evict(id);
    return dicts;
  }

  /** Drops the least recently used APIs (never `keep`) until the entries fit the bound. */
  private evict(keep: string): void {
    let total = this.entries;
    for (const [id, dicts] of this.byApi) {
      if (total <= this.maxEntries) return;
      if (id === keep) continue;
      total -= sizeOf(dicts);
      this.byApi.delete(id);
    }
  }
}
