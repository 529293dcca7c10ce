/**
 * The read side of one API's dictionaries, for query answering: a DictionaryReader (which
 * loads entries incrementally) plus what a query needs on top of it, all kept in step
 * with the loaded entries (dictionaries are append-only, so normally they are only extended):
 *   - decoded values shared per code (one Identity object, one tag array and region per code), so
 *     that every cell of a code carries the same objects;
 *   - inverted indexes for filters: externalId -> identity codes, tag -> tag-set codes,
 *     region -> tag-set codes (a tag-set code is a tag set and a region: dictionary-values.ts).
 * A Redis that restarted without the tail of its AOF has forgotten the last codes and may have
 * given them to other values since: the DictionaryReader notices and loads again from the start
 * (`resets`), and then everything derived here is dropped and rebuilt from the reloaded entries,
 * so that a filter never maps to the code of another value.
 */
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './connection';
import type { Identity } from '@va/core';
import { DictionaryReader } from './dictionary';
import type { Projection, ProjectionKind } from './read/projection';
import { parseIdentity, parseTagSet } from './dictionary-values';
import type { DictName, KeySpace } from './keys';

const NONE: readonly number[] = [];
const NO_GROUPS: readonly string[] = [];
/** Tag filters whose codes are kept (setCodesWithAll); past it they are found again. */
const WITH_ALL_KEPT = 256;

export class ReadDictionaries {
  readonly reader: DictionaryReader;
  private readonly identities: Identity[] = [];
  private readonly tagSets: (readonly string[])[] = [];
  private readonly regions: (string | undefined)[] = [];
  private readonly byExternalId = new Map<string, number[]>();
  private readonly byTag = new Map<string, number[]>();
  private readonly byRegion = new Map<string, number[]>();
  /** reader.resets when the derived values were last (re)built. */
  private builtAtReset = 0;
  /** setCodesWithAll's answers (by the sorted tags) while tagSets had withAllAt entries. */
  private readonly withAll = new Map<string, readonly number[]>();
  private withAllAt = 0;
  /** Replaced whenever the derived values are dropped: projections made before are made again. */
  private epoch = {};
  /** Loads run one at a time: two concurrent loads would append the same entries twice. */
  private queue: Promise<void> = Promise.resolve();

  constructor(redis: RedisClient, space: KeySpace, apiId: string) {
    this.reader = new DictionaryReader(redis, space, apiId);
  }

  /** performance.now() at the start of the last completed load of each dictionary. */
  private readonly loadStarted = new Map<DictName, number>();

  /**
   * Loads what was appended to the given dictionaries since the last call and indexes it. With `since`
   * (a performance.now() value, e.g. when a request arrived) a dictionary whose last load began at or after
   * it is not read again: that load saw every entry appended before `since`, which is all a request that
   * arrived then may expect (one request loading twice, or two arriving together, read Redis once).
   */
  async load(dicts: readonly DictName[], { since }: { since?: number } = {}): Promise<void> {
    if (dicts.length === 0) return;
    await this.serial(async () => {
      const due =
        since === undefined ? dicts : dicts.filter((d) => !((this.loadStarted.get(d) ?? -1) >= since));
      if (due.length === 0) return;
      const started = performance.now();
      await this.reader.load(...due);
      for (const d of due) this.loadStarted.set(d, started);
    });
  }

  /**
   * load's reads queued on someone else's pipeline (a query's first round trip), of the given dictionaries
   * loaded before (a tail since the last load; a first load, up to 20,000 entries, waits for load): the
   * returned function applies the replies. A dictionary it completes counts as loaded when the pipeline was
   * queued (`since` of load); any other is read again by the next load.
   */
  queueTail(
    pipeline: ChainableCommander,
    dicts: readonly DictName[],
  ): (replies: readonly unknown[]) => Promise<void> {
    const queued = performance.now();
    const loaded = dicts.filter((d) => this.size(d) > 0);
    if (loaded.length === 0) return () => Promise.resolve();
    const apply = this.reader.queueTail(pipeline, loaded);
    return (replies) =>
      this.serial(async () => {
        for (const d of await apply(replies))
          this.loadStarted.set(d, Math.max(this.loadStarted.get(d) ?? -1, queued));
      });
  }

  /** Makes sure every code up to `maxCode` of d is decodable (loads more only when needed). */
  async ensure(d: DictName, maxCode: number): Promise<void> {
    if (maxCode < this.reader.size(d)) return;
    await this.serial(() => this.reader.ensure(d, maxCode));
  }

  private serial(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(async () => {
      await task();
      this.index();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  size(d: DictName): number {
    return this.reader.size(d);
  }

  keyId(code: number): string | undefined {
    return this.reader.value('k', code);
  }

  identity(code: number): Identity | undefined {
    return this.identities[code];
  }

  tagSet(code: number): readonly string[] | undefined {
    return this.tagSets[code];
  }

  /** The region of a tag-set code (undefined: no region, or a code not loaded). */
  region(code: number): string | undefined {
    return this.regions[code];
  }

  /**
   * What a tag-set code counts in under groupBy=tag (its tags) or groupBy=region (its region, or
   * nothing): read/projection.ts. A code not loaded yet has none (undefined).
   */
  projection(kind: ProjectionKind): Projection {
    const groupsOf =
      kind === 'tag'
        ? (code: number) => this.tagSets[code]
        : (code: number) => {
            if (code >= this.tagSets.length) return undefined;
            const region = this.regions[code];
            return region === undefined ? NO_GROUPS : [region];
          };
    return { kind, epoch: this.epoch, groupsOf };
  }

  /** Distinct regions over every loaded tag-set code. */
  regionCount(): number {
    return this.byRegion.size;
  }

  /** Whether two tag-set codes can share their tags (some code carries a region). */
  hasRegions(): boolean {
    return this.byRegion.size > 0;
  }

  /** Codes of the tag sets whose region is one of the given ones (unknown ones match nothing). */
  setCodesInRegions(regions: readonly string[]): number[] {
    const out: number[] = [];
    for (const region of new Set(regions)) out.push(...(this.byRegion.get(region) ?? NONE));
    return out;
  }

  /** Codes of the given keyIds that some event carried (unknown ones match nothing). */
  keyCodes(keyIds: readonly string[]): number[] {
    const out: number[] = [];
    for (const keyId of keyIds) {
      const code = this.reader.code('k', keyId);
      if (code !== undefined) out.push(code);
    }
    return out;
  }

  /** Identity codes whose externalId is the given one (several ids may share one). */
  identityCodesOf(externalId: string): readonly number[] {
    return this.byExternalId.get(externalId) ?? NONE;
  }

  /** Distinct tags over every loaded tag set (kept in step with the sets, resets included). */
  tagCount(): number {
    return this.byTag.size;
  }

  /**
   * Codes of the tag sets that contain every given tag. The same array for the same tags while no tag
   * set was added (a filter's totals are kept per array: section-totals.ts); callers do not change it.
   */
  setCodesWithAll(tags: readonly string[]): readonly number[] {
    if (this.withAllAt !== this.tagSets.length) {
      this.withAll.clear();
      this.withAllAt = this.tagSets.length;
    }
    const key = JSON.stringify([...new Set(tags)].sort());
    let codes = this.withAll.get(key);
    if (codes === undefined) {
      if (this.withAll.size >= WITH_ALL_KEPT) this.withAll.clear();
      codes = this.findSetCodesWithAll(tags);
      this.withAll.set(key, codes);
    }
    return codes;
  }

  private findSetCodesWithAll(tags: readonly string[]): readonly number[] {
    let smallest: readonly number[] | undefined;
    for (const tag of tags) {
      const codes = this.byTag.get(tag) ?? NONE;
      if (smallest === undefined || codes.length < smallest.length) smallest = codes;
    }
    if (smallest === undefined) return [];
    return smallest.filter((code) => {
      const set = this.tagSets[code]!;
      return tags.every((tag) => set.includes(tag));
    });
  }

  private index(): void {
    if (this.reader.resets !== this.builtAtReset) {
      this.builtAtReset = this.reader.resets;
      this.epoch = {};
      this.withAll.clear();
      this.withAllAt = -1;
      this.identities.length = 0;
      this.tagSets.length = 0;
      this.regions.length = 0;
      this.byExternalId.clear();
      this.byTag.clear();
      this.byRegion.clear();
    }
    const identityValues = this.reader.all('i');
    for (let code = this.identities.length; code < identityValues.length; code++) {
      const identity = parseIdentity(identityValues[code]!);
      this.identities.push(identity);
      const codes = this.byExternalId.get(identity.externalId);
      if (codes) codes.push(code);
      else this.byExternalId.set(identity.externalId, [code]);
    }
    const setValues = this.reader.all('s');
    for (let code = this.tagSets.length; code < setValues.length; code++) {
      const { tags, region } = parseTagSet(setValues[code]!);
      this.tagSets.push(tags);
      this.regions.push(region);
      for (const tag of tags) {
        const codes = this.byTag.get(tag);
        if (codes) codes.push(code);
        else this.byTag.set(tag, [code]);
      }
      if (region !== undefined) {
        const codes = this.byRegion.get(region);
        if (codes) codes.push(code);
        else this.byRegion.set(region, [code]);
      }
    }
  }
}
