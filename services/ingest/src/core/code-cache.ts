/**
 * The worker's value -> code caches per API and dictionary. A code never changes once assigned,
 * so entries are only added; the whole cache starts over past a size bound (a miss costs one round
 * trip per batch, a cache without bound costs memory forever) and whenever Redis may have lost
 * entries (reconnect, failed length check).
 */
import type { ApiCodes } from '@va/store';

export class CodeCache {
  private caches = new Map<string, ApiCodes>();
  private entries = 0;

  constructor(private readonly maxEntries = 2_000_000) {}

  /** The (possibly empty) codes of an API; the returned maps are live. */
  codesOf(apiId: string): ApiCodes {
    let codes = this.caches.get(apiId);
    if (!codes) {
      codes = { k: new Map(), i: new Map(), s: new Map() };
      this.caches.set(apiId, codes);
    }
    return codes;
  }

  /** Before an assignment round: start over when past the bound. */
  makeRoom(): void {
    if (this.entries > this.maxEntries) this.clear();
  }

  add(assigned: ReadonlyMap<string, ApiCodes>): void {
    for (const [apiId, perDict] of assigned) {
      const codes = this.codesOf(apiId);
      for (const d of ['k', 'i', 's'] as const) {
        for (const [value, code] of perDict[d]) {
          codes[d].set(value, code);
          this.entries++;
        }
      }
    }
  }

  clear(): void {
    this.caches = new Map();
    this.entries = 0;
  }
}
