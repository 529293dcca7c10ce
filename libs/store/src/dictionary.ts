/**
 * Dictionaries: every string dimension of an API is stored as a small integer code.
 * Per API and dictionary d ∈ k (keyId), i (identity "id\nexternalId"), s (tag set "a,b",
 * "" = no tags) there is an append-only Redis list (position = code) and an index hash
 * (value -> code); see keys.ts. Value encodings: dictionary-values.ts. A code never
 * changes once assigned, so both caches below only ever grow.
 *
 * READ SIDE (query service, verification):
 *
 *   const dicts = new DictionaryReader(redis, space, apiId); // may be kept per (space, apiId)
 *   await dicts.load('k', 's');        // fetches only the entries appended since the last load
 *                                      // (loads are serialized; safe to call concurrently)
 *   dicts.value('k', 3);               // keyId of code 3, or undefined (not loaded / no such code)
 *   dicts.code('k', 'key_1');          // code of a loaded value, or undefined
 *   await dicts.ensure('k', 1234);     // loads more only if code 1234 is not loaded yet
 *   await dicts.lookup('i', identityValue(id, ext)); // value -> code with one HMGET, no full load
 *   parseIdentity(dicts.value('i', c)!), parseTagSet(dicts.value('s', c)!)  // dictionary-values.ts
 *
 * After a Redis crash that lost recent writes, codes past the loss may be given to other values;
 * load() notices (it re-reads the last loaded entry) and starts over: `dicts.resets` counts that,
 * so that anything derived from codes can be rebuilt.
 *
 * Counter fields carry codes in base 36 (keys.ts): `parseInt(part, 36)` gives the code.
 * A counter never uses a code its dictionary does not hold (applyApiBatch checks the lengths),
 * but a counter read after the last `load` may use a newer code: call `ensure(d, maxCode)`
 * before decoding (a no-op when that code is loaded).
 *
 * WRITE SIDE (ingest): DictionaryWriter keeps value -> code caches and assigns missing codes
 * with the `assignCodes` script, one call per (API, dictionary) with misses, pipelined.
 */
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './connection';
import { apiKeys, type DictName, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import { decodeAssignCodes, queueAssignCodes } from './scripts/dictionary-scripts';

export const DICTIONARIES: readonly DictName[] = ['k', 'i', 's'];

/** Entries fetched per LRANGE: keeps replies (and Redis' time per command) bounded. */
const LOAD_CHUNK = 20_000;
/**
 * Values per assignCodes call. A new value costs three commands (HGET, RPUSH, HSET), ~10 µs inside Lua,
 * so 300 keep a call near 3 ms, under the ~5 ms bound of a Lua call (1,000 would not).
 */
const ASSIGN_CHUNK = 300;

export class DictionaryReader {
  private values: Record<DictName, string[]> = { k: [], i: [], s: [] };
  private codes: Record<DictName, Map<string, number>> = { k: new Map(), i: new Map(), s: new Map() };
  private readonly keys;
  private loading: Promise<void> = Promise.resolve();
  private resetCount = 0;

  constructor(
    private readonly redis: RedisClient,
    space: KeySpace,
    readonly apiId: string,
  ) {
    this.keys = apiKeys(space, apiId);
  }

  /** Number of loaded entries of d (codes 0 .. size-1 are decodable). */
  size(d: DictName): number {
    return this.values[d].length;
  }

  /**
   * Appends every entry added in Redis since the last load, for each given dictionary. Each read
   * starts one entry early and checks that entry against the cache: a Redis that lost its last
   * writes (crash) may have given those codes to other values since, and then the dictionary is
   * read again from the start.
   */
  load(...dicts: DictName[]): Promise<void> {
    // One load at a time: two overlapping loads would append the same entries twice.
    const run = this.loading.then(() => this.loadNow(dicts));
    this.loading = run.catch(() => undefined);
    return run;
  }

  /**
   * Incremented each time a load found that Redis lost entries this reader had loaded and started
   * over: anything derived from codes (indexes, decoded objects) must be rebuilt then.
   */
  get resets(): number {
    return this.resetCount;
  }

  private async loadNow(dicts: DictName[]): Promise<void> {
    let pending = dicts.length > 0 ? [...new Set(dicts)] : [...DICTIONARIES];
    while (pending.length > 0) {
      const pipeline = newPipeline(this.redis);
      for (const d of pending) pipeline.lrange(this.keys.dict(d), ...this.tailRange(d));
      const replies = (await execPipeline(pipeline)) as string[][];
      pending = pending.filter((d, n) => this.appendTail(d, replies[n] ?? []) !== 'done');
    }
  }

  /** The LRANGE bounds of d's next chunk: from the last loaded entry (re-read as a check), LOAD_CHUNK long. */
  private tailRange(d: DictName): [number, number] {
    const from = Math.max(0, this.values[d].length - 1);
    return [from, from + LOAD_CHUNK - 1];
  }

  /**
   * Appends a chunk read at tailRange(d): 'reset' when its first entry is not the last one loaded
   * (Redis lost entries: d is dropped, to be read again from the start), 'more' when the chunk was
   * full (more may follow), else 'done'.
   */
  private appendTail(d: DictName, chunk: string[]): 'done' | 'more' | 'reset' {
    const values = this.values[d];
    if (values.length > 0) {
      if (chunk[0] !== values[values.length - 1]) {
        this.values[d] = [];
        this.codes[d] = new Map();
        this.resetCount++;
        return 'reset';
      }
      chunk = chunk.slice(1);
    }
    const codes = this.codes[d];
    for (const value of chunk) {
      codes.set(value, values.length);
      values.push(value);
    }
    return chunk.length >= LOAD_CHUNK - 1 ? 'more' : 'done';
  }

  /**
   * A load whose reads ride in someone else's pipeline (the query's first round trip): queues d's
   * tail reads, and returns what applies the replies, through the same one-at-a-time queue as load.
   * The apply reports the dictionaries it completed; any other (a load ran in between and moved the
   * tail, a reset, more than one chunk) is left for a load of the caller's.
   */
  queueTail(
    pipeline: ChainableCommander,
    dicts: readonly DictName[],
  ): (replies: readonly unknown[]) => Promise<DictName[]> {
    const at = pipeline.length;
    const queued = [...new Set(dicts)].map((d) => {
      const range = this.tailRange(d);
      pipeline.lrange(this.keys.dict(d), ...range);
      return { d, size: this.values[d].length };
    });
    return (replies) => {
      const run = this.loading.then(() =>
        queued.flatMap(({ d, size }, n) =>
          this.values[d].length === size &&
          this.appendTail(d, (replies[at + n] as string[] | null) ?? []) === 'done'
            ? [d]
            : [],
        ),
      );
      this.loading = run.then(
        () => undefined,
        () => undefined,
      );
      return run;
    };
  }

  /** Loads d when `code` is not loaded yet (e.g. a counter newer than the last load). */
  async ensure(d: DictName, code: number): Promise<void> {
    if (code >= this.values[d].length) await this.load(d);
  }

  /** The value of a code, or undefined when not (yet) loaded. */
  value(d: DictName, code: number): string | undefined {
    return this.values[d][code];
  }

  /** Every loaded value of d; index = code. */
  all(d: DictName): readonly string[] {
    return this.values[d];
  }

  /** The code of a value among the loaded entries. */
  code(d: DictName, value: string): number | undefined {
    return this.codes[d].get(value);
  }

  /**
   * value -> code without loading the whole list (one HMGET on the index hash for the
   * values not loaded). undefined = no event of this API ever carried that value.
   */
  async lookup(d: DictName, value: string): Promise<number | undefined> {
    return (await this.lookupMany(d, [value]))[0];
  }

  async lookupMany(d: DictName, values: readonly string[]): Promise<(number | undefined)[]> {
    const out = values.map((v) => this.codes[d].get(v));
    const missing = values.filter((_, n) => out[n] === undefined);
    if (missing.length === 0) return out;
    const found = await this.redis.hmget(this.keys.dictIndex(d), ...missing);
    let m = 0;
    return out.map((code) => {
      if (code !== undefined) return code;
      const raw = found[m++];
      return raw === null || raw === undefined ? undefined : Number(raw);
    });
  }
}

/** The writer's value -> code caches of one API. */
export type ApiCodes = Record<DictName, Map<string, number>>;

/** Values of one API still without a cached code, per dictionary. */
export type MissingValues = Record<DictName, Set<string>>;

export const emptyMissing = (): MissingValues => ({ k: new Set(), i: new Set(), s: new Set() });

export class DictionaryWriter {
  private caches = new Map<string, ApiCodes>();
  private entries = 0;

  /**
   * @param maxEntries bound on cached codes over all APIs; past it the caches start over
   *   (a miss costs one round trip per batch, a cache without bound costs memory forever).
   */
  constructor(
    private readonly redis: RedisClient,
    private space: KeySpace,
    private readonly maxEntries = 2_000_000,
  ) {}

  /** The (possibly empty) caches of an API; look values up here first. */
  codesOf(apiId: string): ApiCodes {
    let codes = this.caches.get(apiId);
    if (!codes) {
      codes = { k: new Map(), i: new Map(), s: new Map() };
      this.caches.set(apiId, codes);
    }
    return codes;
  }

  /**
   * Assigns (or finds) codes for every missing value and adds them to the caches:
   * assignCodes calls per (API, dictionary) with misses (of at most ASSIGN_CHUNK values each: a
   * value costs three commands, and the first batch of a large API holds thousands), all in one
   * pipeline.
   */
  async assign(missing: ReadonlyMap<string, MissingValues>): Promise<void> {
    if (this.entries > this.maxEntries) this.clear();
    const pipeline = newPipeline(this.redis);
    const calls: { codes: Map<string, number>; values: string[] }[] = [];
    for (const [apiId, perDict] of missing) {
      const codes = this.codesOf(apiId);
      for (const d of DICTIONARIES) {
        const all = [...perDict[d]];
        for (let from = 0; from < all.length; from += ASSIGN_CHUNK) {
          const values = all.slice(from, from + ASSIGN_CHUNK);
          queueAssignCodes(this.redis, pipeline, this.space, apiId, d, values);
          calls.push({ codes: codes[d], values });
        }
      }
    }
    if (calls.length === 0) return;
    const replies = await execPipeline(pipeline);
    calls.forEach(({ codes, values }, n) => {
      const assigned = decodeAssignCodes(replies[n]);
      values.forEach((value, m) => codes.set(value, assigned[m]!));
      this.entries += values.length;
    });
  }

  /** Forget every cached code (Redis may have lost entries: reconnect, failed length check). */
  clear(space: KeySpace = this.space): void {
    this.caches = new Map();
    this.entries = 0;
    this.space = space;
  }
}
