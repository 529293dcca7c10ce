/**
 * Dictionaries per (key prefix, generation, API), kept in memory between requests: they are
 * append-only, so a cached copy is never wrong, only possibly short, and each request
 * loads just what was appended since. Bounded: the least recently used API goes first.
 */
import type { Redis } from 'ioredis';
import { ReadDictionaries, type KeySpace } from '@va/store';

export class DictionaryCache {
  private readonly entries = new Map<string, ReadDictionaries>();

  constructor(
    private readonly redis: Redis,
    private readonly maxApis = 10_000,
  ) {}

  get(space: KeySpace, apiId: string): ReadDictionaries {
    const id = `${space.prefix}\n${space.generation}\n${apiId}`;
    let dicts = this.entries.get(id);
    if (dicts) {
      this.entries.delete(id); // re-insert: Map order is the recency order
    } else {
      dicts = new ReadDictionaries(this.redis, space, apiId);
      if (this.entries.size >= this.maxApis) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
    }
    this.entries.set(id, dicts);
    return dicts;
  }
}
