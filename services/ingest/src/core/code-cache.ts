/**
 * The worker's value -> code caches per API and dictionary. A code never changes once assigned,
 * so entries are only added; the whole cache starts over past a size bound (a miss costs one round
 * trip per batch, a cache without bound costs memory forever) and whenever Redis may have lost
 * entries (reconnect, failed length check).
 */
import type { ApiCodes, DictName } from '@va/store';

export class CodeCache {
  private caches = new Map<string, ApiCodes>();
  /** The same entries the other way round, code -> value (alert detection reads values of the codes counted). */
  private values = new Map<string, Record<DictName, string[]>>();
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

  /**
   * The values of the API's codes: a function that keeps the cache's current arrays, so that it still
   * answers for the codes of a batch after the cache started over (codes never change once assigned).
   * Throws for a code the cache never held.
   */
  valuesOf(apiId: string): (d: DictName, code: number) => string {
    let values = this.values.get(apiId);
    if (!values) this.values.set(apiId, (values = { k: [], i: [], s: [] }));
    const held = values;
    return (d, code) => {
      const value = held[d][code];
      if (value === undefined) throw new Error(`no value cached for code ${code} of ${apiId} ${d}`);
      return value;
    };
  }

  add(assigned: ReadonlyMap<string, ApiCodes>): void {
    for (const [apiId, perDict] of assigned) {
      const codes = this.codesOf(apiId);
      let values = this.values.get(apiId);
      if (!values) this.values.set(apiId, (values = { k: [], i: [], s: [] }));
      for (const d of ['k', 'i', 's'] as const) {
        for (const [value, code] of perDict[d]) {
          codes[d].set(value, code);
          values[d][code] = value;
          this.entries++;
        }
      }
    }
  }

  clear(): void {
    this.caches = new Map();
    this.values = new Map();
    this.entries = 0;
  }
}
