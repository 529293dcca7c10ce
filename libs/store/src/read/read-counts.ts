/**
 * Reads and sums the counters of a query's bucket reads: the calls in rounds, each reply summed into
 * CodeCounts (sections over typed arrays, hash fields per field), a rollup's children from the cache.
 */
import type { ChainableCommander } from 'ioredis';
import { isCluster, type RedisClient } from '../connection';
import { lastHourOf, type BucketRead, type Cell, type TopGroups } from '@va/core';
import { apiKeys, type KeySpace } from '../keys';
import { execPipeline, newPipeline } from '../pipeline';
import { CodeCounts, FieldSums, type Sign } from '../read-fields';
import { compactCounts, SectionSums, type SectionView } from '../read-sections';
import type { SectionStore } from '../section-cache';
import { decodeSection, deriveIdentityKey, mergeSections, SECTION_VERSION_OFFSET } from '../section/codec';
import { parseIndex } from './api-meta';
import { projectedOf, ProjectedSums, type Projection } from './projection';
import { mergedKeyOf, shapeOf, type ChildrenRun } from './children-shape';
import { groupMinutesByHour, minuteHourTexts } from './minute-hours';
import { minuteParts } from './minute-parts';
import { deltaPlanOf, selectionOf, signOf, type CubeQuery } from './cube-query';
import {
  leftCalls,
  partOfMember,
  PARTS_BUDGET,
  queueReadBuckets,
  readBucketsArgs,
  type ItemReply,
  type LeftHashes,
} from '../scripts/read-scripts';
import { chunksOf, readsOfUnit, READ_MAX_KEYS, unitsOf, type ChildrenRead, type Item } from './units';
import { readsDependOnCompaction } from './rollup-families';

export interface ReadOptions {
  /** Work per readBuckets call, in READ_MAX_KEYS units (default READ_MAX_KEYS). */
  maxKeys?: number;
  /** readBuckets calls per round trip (default READ_CALLS_PER_ROUND_TRIP). */
  callsPerRoundTrip?: number;
  /** Work of a P item and of a C call (default PARTS_BUDGET). */
  partsBudget?: number;
  /** Once aborted, no further Redis call is made: the read throws the signal's reason. */
  signal?: AbortSignal;
  /** Decoded sections kept between reads (section-cache.ts); without, every section is sent. */
  sections?: SectionStore;
  /**
   * A top-N query (libs/core topGroupsOf): only groups that can be among its first rows need be
   * summed whole. The counts may then hold just those; the caller still applies keepLargest.
   */
  top?: TopGroups;
  /**
   * The tag-set value a query groups by alone (its tags, or its region). A read of the tag-set cube
   * without filters, grouped by the set alone and not a top-N, sums its sealed sections per tag or
   * region (projection.ts) and hands them back as `projected` cells; any other read ignores it.
   */
  project?: Projection;
  /**
   * A key to GET in the pipeline of every round, after its reads (the query service's `<p>:gen`:
   * verifications/one-generation.ts), so that a value read after every read of the call costs no
   * round trip of its own; its value after the last round is `after`. On one Redis a pipeline runs
   * in order; on a cluster its groups run in no order, so there the key is not read (`after` absent).
   */
  readAfter?: string;
}

/**
 * readBuckets calls sent per round trip. Sending a large read in rounds lets the commands of
 * other requests on the same connection in between (Redis answers one connection in order),
 * spreads the parsing over several turns of the event loop, and lets an aborted read stop.
 */
export const READ_CALLS_PER_ROUND_TRIP = 4;

export type CountsRead =
  /** `after`: readAfter's value, read after every read of the call (absent when it made none). */
  | { ok: true; counts: CodeCounts; after?: string | null; projected?: Cell[] }
  /** The compaction point moved since the plan: plan again with this one. */
  | { ok: false; compactedThrough: number | null };

/**
 * Reads and sums the counters of `reads` (planned with `compactedThrough`): per bucket its
 * sealed section of the cube (sectionCubeOf), summed over typed arrays (read-sections.ts), plus
 * its sealing and delta hashes (read-fields.ts). Filters with an empty code list match nothing
 * and read nothing.
 */
export async function readCounts(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  q: CubeQuery,
  reads: readonly BucketRead[],
  compactedThrough: number | null,
  options: ReadOptions = {},
): Promise<CountsRead> {
  const counts = new CodeCounts();
  if ([q.keys, q.identities, q.sets].some((codes) => codes !== null && codes.length === 0)) {
    return { ok: true, counts };
  }
  if (reads.length === 0) return { ok: true, counts };
  const keys = apiKeys(space, apiId);
  const cache = options.sections;
  const delta = deltaPlanOf(q);
  const snapshot = readsDependOnCompaction(reads, compactedThrough);
  // Hash fields are summed per field first (per slice, and per part in cube f), so that each
  // distinct field is decoded into its group once however many buckets hold it.
  const sums = new Map<string, { slice: number | null; part: string; fields: FieldSums }>();
  const fieldsOf = (slice: number | null, part: string): FieldSums => {
    const id = `${slice}/${q.cube === 'f' ? part : ''}`;
    let entry = sums.get(id);
    if (!entry) {
      entry = { slice, part, fields: new FieldSums(q.cube) };
      sums.set(id, entry);
    }
    return entry.fields;
  };
  const sections = new SectionSums(q, options.top);
  const projection = projectionFor(q, options);
  const projected = projection && new ProjectedSums(projection.kind);
  const addSection: AddSection = (slice, section, sign) => {
    const p = projection && projectedOf(section, projection);
    if (p) projected!.add(slice, p, sign);
    else sections.add(slice, section, sign);
  };
  const perRoundTrip = options.callsPerRoundTrip ?? READ_CALLS_PER_ROUND_TRIP;
  const readAfter = isCluster(redis) ? undefined : options.readAfter;
  let after: { value: string | null } | undefined;
  const exec = async (pipeline: ChainableCommander): Promise<ItemReply[][]> => {
    if (readAfter !== undefined) pipeline.get(readAfter);
    const replies = await execPipeline(pipeline);
    if (readAfter !== undefined) after = { value: replies.pop() as string | null };
    return replies as ItemReply[][];
  };
  const partsBudget = options.partsBudget ?? PARTS_BUDGET;
  const sel = selectionOf(q);
  // A minute's f hash holds every identity (units.ts): the identity filter's parts only, looked up by
  // name (a minute of the medium tenant has ~2,000 parts; a filter names a few).
  const wantedParts = sel.identities ? [...sel.identities] : undefined;
  const left: LeftHashes[] = [];
  /** A hash's text counted in `targets`; `byPart`: a minute's f hash, cut into its parts. */
  const addHash = (
    key: string,
    text: string,
    part: string,
    byPart: boolean,
    targets: readonly BucketRead[],
  ) => {
    const parts = byPart ? minuteParts(key, text) : undefined;
    for (const t of targets) {
      const { slice } = t;
      const sign = signOf(t);
      if (!parts) fieldsOf(slice, part).addText(text, sign);
      else if (wantedParts) {
        for (const p of wantedParts) {
          const f = parts.get(p);
          if (f !== undefined) fieldsOf(slice, p).addText(f, sign);
        }
      } else for (const [p, f] of parts) fieldsOf(slice, p).addText(f, sign);
    }
  };
  /** The section parts of a parts list, summed like sections (never cached: they live until the next seal). */
  const addParts = (parts: readonly Buffer[], targets: readonly BucketRead[]) => {
    for (const part of parts) {
      const section = compactCounts(decodeSection(part));
      for (const t of targets) sections.add(t.slice, section, signOf(t));
    }
  };
  // A rollup whose recorded children changed is read again child by child (and recorded anew), in
  // a second round: the buckets around them were read with its M item, and with overlapping reads
  // every call's compaction point is checked, so no hour is counted twice in between.
  let pending: readonly BucketRead[] = reads;
  for (let round = 0; pending.length > 0; round++) {
    const units = groupMinutesByHour(
      unitsOf(q, delta, pending, keys, cache, round === 0, compactedThrough),
      keys,
      cache,
      q.cube,
    );
    const chunks = chunksOf(units, pending, options.maxKeys ?? READ_MAX_KEYS);
    const again: BucketRead[] = [];
    for (let from = 0; from < chunks.length; from += perRoundTrip) {
      options.signal?.throwIfAborted();
      const batch = chunks.slice(from, from + perRoundTrip);
      const pipeline = newPipeline(redis);
      for (const chunk of batch) queueReadBuckets(redis, pipeline, readBucketsArgs(keys, chunk, partsBudget));
      const replies = await exec(pipeline);
      if (snapshot) {
        // Each call read cmp with its buckets atomically, and a call holds whole families (see
        // chunksOf): every family was read at the compaction point the plan was made with.
        for (const reply of replies) {
          const now = parseIndex(reply[0]?.toString());
          if (now !== compactedThrough) return { ok: false, compactedThrough: now };
        }
      }
      batch.forEach((chunk, c) => {
        const reply = replies[c]!;
        const cmp = parseIndex(reply[0]?.toString());
        let n = 1;
        for (const unit of chunk) {
          const targets = readsOfUnit(unit);
          for (const item of unit.items) {
            const value = reply[n++];
            if (item.kind === 'S') {
              const section = sectionOf(item, value, cache);
              unit.section = section ?? null;
              if (section) for (const t of targets) addSection(t.slice, section, signOf(t));
            } else if (item.kind === 'M') {
              for (const children of item.children)
                again.push(...childrenOf(children, value, cmp, addSection, cache!));
            } else if (item.kind === 'H') {
              if (!Buffer.isBuffer(value) || value.length === 0) continue;
              addHash(item.key, value.toString('latin1'), item.part, item.byPart === true, targets);
            } else if (item.kind === 'W') {
              for (const [m, text] of minuteHourTexts(item, value, cache!).entries()) {
                const minute = item.minutes[m]!;
                if (text.length > 0) addHash(minute.key, text, '', minute.byPart, minute.reads);
              }
            } else if (item.kind === 'L') {
              addParts((value ?? []) as Buffer[], targets);
            } else {
              const found = (value ?? []) as (Buffer | Buffer[])[];
              const rest = (found[0] ?? []) as Buffer[];
              const counted = targets.map((t) => ({ slice: t.slice, sign: signOf(t) }));
              if (rest.length > 0) {
                const guard = (found[1] as Buffer).toString('latin1');
                const names = rest.map((name) => name.toString('latin1'));
                left.push({ item, targets: counted, guard, names });
              }
              for (let m = 2; m + 1 < found.length; m += 2) {
                const value = found[m + 1]!;
                // A shard's parts list (readBuckets.lua P): its section parts, in place of a hash's text.
                if (Array.isArray(value)) {
                  addParts(value, targets);
                  continue;
                }
                const part = partOfMember(item.cube, (found[m] as Buffer).toString('latin1'));
                const text = value.toString('latin1');
                for (const { slice, sign } of counted) fieldsOf(slice, part).addText(text, sign);
              }
            }
          }
        }
      });
    }
    // The hashes P items left (a large unsealed bucket), in C calls of bounded work.
    for (let calls = leftCalls(keys, left.splice(0), partsBudget); calls.length > 0;) {
      options.signal?.throwIfAborted();
      const batch = calls.splice(0, perRoundTrip);
      const pipeline = newPipeline(redis);
      for (const call of batch) queueReadBuckets(redis, pipeline, call.args);
      const replies = await exec(pipeline);
      for (const [c, reply] of replies.entries()) {
        const now = parseIndex(reply[0]?.toString());
        if (snapshot && now !== compactedThrough) return { ok: false, compactedThrough: now };
        // A seal of the bucket began or ended since its P item: read again from a new plan.
        if (!Array.isArray(reply[1])) return { ok: false, compactedThrough: now };
        const { left: from, names } = batch[c]!;
        reply[1].forEach((text, n) => {
          if (text.length === 0) return;
          const name = names[n]!;
          const member = name.startsWith('z:') ? name.slice(2) : name;
          const part = partOfMember(from.item.cube, member);
          const counts = text.toString('latin1');
          for (const { slice, sign } of from.targets) fieldsOf(slice, part).addText(counts, sign);
        });
        // The budget ran out before the call's last hash: the rest in another call.
        const unread = names.slice(reply[1].length);
        if (unread.length > 0) calls.push(...leftCalls(keys, [{ ...from, names: unread }], partsBudget));
      }
    }
    pending = again;
  }
  options.signal?.throwIfAborted();
  for (const { slice, part, fields } of sums.values()) fields.addTo(counts.slice(slice), sel, part);
  sections.addTo(counts);
  return {
    ok: true,
    counts,
    ...(after !== undefined && { after: after.value }),
    ...(projected && { projected: projected.cells() }),
  };
}

type AddSection = (slice: number | null, section: SectionView, sign: Sign) => void;

/** The projection a read may use: the tag-set cube, no filter, grouped by the set alone, no top-N. */
function projectionFor(q: CubeQuery, options: ReadOptions): Projection | undefined {
  const { project, top } = options;
  if (!project || top || q.cube !== 's') return undefined;
  if (q.keys !== null || q.identities !== null || q.sets !== null) return undefined;
  return q.group.set && !q.group.key && !q.group.identity ? project : undefined;
}

/**
 * An M item's reply (the rollup's version when it and the listed children have no delta, else
 * nil): `use` sums the recorded children's cached sections when the version is the recorded one,
 * else returns their reads to be read one by one; `record` records the children read in the same
 * call, hours only when all are at most `cmp`, the compaction point read in that call.
 */
function childrenOf(
  children: ChildrenRead,
  value: ItemReply | undefined,
  cmp: number | null,
  add: AddSection,
  cache: SectionStore,
): readonly BucketRead[] {
  const version = Buffer.isBuffer(value) ? value : undefined;
  if (children.kind === 'use') {
    if (!version?.equals(children.recorded.version)) return children.reads;
    if (children.res === 'h') cache.dayHit();
    else cache.monthHit();
    // The children read into one slice with one sign are added as one merged section (kept under the
    // rollup's version): a query without time granularity adds its 30 days once, and a zone's local day
    // its edge hours of each UTC day once (added to one slice, subtracted from the next).
    for (const run of shapeOf(children.reads).runs) {
      const section =
        run.positions.length === 1
          ? children.sections[run.positions[0]!]
          : mergedChildren(children, run, cache);
      if (section) add(run.slice, section, run.sign);
    }
    return [];
  }
  if (!version) return [];
  // An hour after the compaction point is written without its day (rollup-children.ts), and an edge of a day
  // not compacted through without its month.
  if (
    children.res !== 'd' &&
    children.units.some(({ read }) => cmp === null || lastHourOf(read.res, read.index) > cmp)
  )
    return [];
  const recorded = new Map<number, Buffer | null>();
  for (const unit of children.units) {
    if (unit.section === null) {
      recorded.set(unit.read.index, null);
      continue;
    }
    const key = unit.items.find((item) => item.kind === 'S')!.key;
    const cached = cache.get(key);
    // The cache keeps what it can (a section larger than its bound is not kept): no record then.
    if (!cached || cached.section !== unit.section) return [];
    recorded.set(unit.read.index, cached.version);
  }
  cache.setRecorded(children.key, { version: Buffer.from(version), children: recorded });
  return [];
}

/**
 * Some recorded children's sections merged into one (rows of equal codes summed), from the cache
 * when merged before under the same rollup version: while the rollup keeps it, no child changed
 * (rollup-children.ts). 30 days of one API's `s` or `i` sections hold ~1,300–2,000 rows each, and
 * their merge about as many: a query over them without granularity sums a twentieth of the rows.
 */
function mergedChildren(
  children: Extract<ChildrenRead, { kind: 'use' }>,
  run: ChildrenRun,
  cache: SectionStore,
): SectionView | undefined {
  const key = mergedKeyOf(run, children.key);
  const held = cache.get(key);
  if (held?.version.equals(children.recorded.version)) return held.section;
  const present = run.positions.map((p) => children.sections[p]).filter((section) => !!section);
  if (present.length === 0) return undefined;
  let summed = present[0]!;
  if (present.length > 1) {
    let merged = mergeSections(present[0]!, present[1]!, 0);
    for (const section of present.slice(2)) merged = mergeSections(merged, section, 0);
    summed = compactCounts(merged);
  }
  cache.set(key, { version: Buffer.from(children.recorded.version), section: summed });
  return summed;
}

/** The section of an S item's reply: sent (decoded, cached), unchanged (the cached copy) or none. */
function sectionOf(
  item: Extract<Item, { kind: 'S' }>,
  value: ItemReply | undefined,
  cache: SectionStore | undefined,
): SectionView | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') {
    if (!item.held) throw new Error(`readBuckets: ${item.key} unchanged, but no version was sent`);
    cache?.hit();
    return item.held.section;
  }
  if (!Buffer.isBuffer(value)) throw new Error(`readBuckets: unexpected reply for ${item.key}`);
  const decoded = decodeSection(value);
  // An hour keeps no x section (seal.ts withIdentityKey): its f section came instead, with a row per
  // tag set. Its x rows are derived once, here, and kept: an identity's hour holds ~50 times fewer,
  // and a New York day sums ten such hours where a UTC day sums none.
  const section = compactCounts(
    item.fallback && decoded.cube === 'f' ? deriveIdentityKey(decoded, decoded.version) : decoded,
  );
  if (cache) {
    cache.miss();
    const version = Buffer.from(value.subarray(SECTION_VERSION_OFFSET, SECTION_VERSION_OFFSET + 8));
    cache.set(item.key, { version, section });
  }
  return section;
}
