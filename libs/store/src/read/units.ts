/**
 * The reads of a query as readBuckets items, per bucket (units), and those units cut into calls of
 * bounded work that keep each family (an hour and the rollup read around it) in one atomic call.
 */
import { dayOfHour, isEdgeResolution, type BucketRead, type EdgeResolution } from '@va/core';
import { edgeFamilies } from './edge-families';
import { rollupFamily, rollupsRead } from './rollup-families';
import { apiKeys, partsListSuffix, shardOf, type Cube } from '../keys';
import { recordedSections, type RollupChildren } from '../rollup-children';
import type { SectionView } from '../read-sections';
import type { CachedMinutes, CachedSection, SectionStore } from '../section-cache';
import { childKeysOf, groupsOf, shapeOf } from './children-shape';
import { sectionCubeOf, type CubeQuery, type DeltaPlan } from './cube-query';

/** What one bucket read asks readBuckets.lua for (its items, see the script's header). */
export type Item =
  /**
   * The bucket's section of the cube; `held` = the cached copy whose version is sent. `fallback`:
   * the f section, read where the x section (`key`) is absent.
   */
  | { kind: 'S'; key: string; held: CachedSection | undefined; fallback?: string }
  /**
   * One delta or sealing hash (HGETALL, or HMGET of `fields`); `part` as in FieldSums. `byPart`: a minute
   * bucket's f hash, whose fields name their part (field-codec.ts minuteFField).
   */
  | { kind: 'H'; key: string; part: string; fields?: string[]; byPart?: true }
  /** Every hash of the cube in the bucket's parts and zparts sets (of `allowed` parts only when given). */
  | {
      kind: 'P';
      cube: Cube;
      parts: string;
      zparts: string;
      /** The API's seal sequence: with zparts, the guard of the hashes left for C calls. */
      sequence: string;
      root: string;
      allowed: string[] | null;
    }
  /** The section parts of the cube (its parts list, delta and sealing names), summed like sections. */
  | { kind: 'L'; list: string; sealing: string }
  /**
   * A rollup whose children's reads go as one (rollup-children.ts: a month's days and hours, a
   * day's hours; the records used checked by one item, each record made by one of its own): `key`
   * its t section, `absent` the keys that must not exist (its parts and zparts sets, and to record,
   * each listed child's, and for hours the API's stage). The reply is the rollup's version when
   * none of them exists, else nil.
   */
  | { kind: 'M'; key: string; absent: string[]; children: ChildrenRead[] }
  /**
   * Minutes of one hour (minute-hours.ts): `key` the hour's t section, `absent` the keys whose absence with
   * an unchanged version means unchanged minutes; `held` the copies kept under `cacheKey`. `cube`: the cube of
   * every minute hash (the script spells their keys from it and their indexes).
   */
  | {
      kind: 'W';
      key: string;
      absent: string[];
      cube: 't' | 'f';
      minutes: MinuteRead[];
      cacheKey: string;
      held: CachedMinutes | undefined;
    };

/** One minute hash of a W item, and the reads it counts in (a minute may be read for two slices). */
export interface MinuteRead {
  key: string;
  /** The minute's index (keys.ts `n:<t>`): the script spells `key` from it. */
  index: number;
  /** Its f hash's fields name their part (field-codec.ts minuteFField). */
  byPart: boolean;
  reads: readonly BucketRead[];
}

/**
 * `use`: the recorded children, summed from the cache when the rollup still has the recorded
 * version. `record`: the child units read in the same call, recorded when the rollup and they have
 * no delta (and, for hours, all are compacted).
 */
export type ChildrenRead =
  | {
      kind: 'use';
      res: ChildResolution;
      /** The record's key (rollup-children.ts), also naming the children's merged sum in the cache. */
      key: string;
      recorded: RollupChildren;
      /** Every read of the children (a zone reads an hour twice), and the children read, in order. */
      reads: readonly BucketRead[];
      indexes: readonly number[];
      /** The cached section of each of `indexes` (null: none). */
      sections: (SectionView | null)[];
    }
  | { kind: 'record'; res: ChildResolution; key: string; units: Unit[] };

/**
 * The children of a rollup read as one: 'd' a month's days, 'h' a month's or a day's hours, an edge
 * resolution a billing zone's edges in a month's compacted days (rollup-children.ts).
 */
export type ChildResolution = 'd' | 'h' | EdgeResolution;

/** Its children's label in the record's key. */
const childrenLabel = (res: ChildResolution): string =>
  res === 'd' ? 'days' : res === 'h' ? 'hours' : `edges/${res}`;

export interface Unit {
  read: BucketRead;
  items: Item[];
  /** Estimated work in Redis (see READ_MAX_KEYS). */
  weight: number;
  /** The family chunksOf keeps in one call, when not the bucket's own (a rollup's children read as one). */
  family?: string;
  /** Its section as read (S item; null = none), for a rollup's record. */
  section?: SectionView | null;
  /** Other reads of the same hour bucket (another slice, or subtracted): counted from this unit's reply. */
  also?: BucketRead[];
}

/** The reads a unit's reply counts in: its own, then the repeats of its bucket. */
export const readsOfUnit = (unit: Unit): readonly BucketRead[] =>
  unit.also ? [unit.read, ...unit.also] : [unit.read];

/** Work of a P item: it reads the hashes its sets list (few once a bucket is sealed). */
export const PARTS_WEIGHT = 8;

/**
 * The items of one bucket read: its section, and its delta and sealing hashes (`<b>:<suffix>`
 * and `<b>:z:<suffix>`): named when the filters name them, else from the parts sets in Redis.
 */
function unitOf(
  q: CubeQuery,
  delta: DeltaPlan,
  read: BucketRead,
  keys: ReturnType<typeof apiKeys>,
  sections: SectionStore | undefined,
): Unit {
  const { res, index } = read;
  if (res === 'n') return minuteUnitOf(q, read, keys);
  const cube = sectionCubeOf(q);
  const sectionKey = keys.section(res, index, cube);
  const held = sections?.get(sectionKey);
  const items: Item[] = [
    cube === 'x'
      ? { kind: 'S', key: sectionKey, held, fallback: keys.section(res, index, 'f') }
      : { kind: 'S', key: sectionKey, held },
  ];
  if (delta.kind === 'named') {
    for (const { suffix, part, fields } of delta.hashes) {
      for (const key of [keys.cube(res, index, suffix), keys.sealing(res, index, suffix)]) {
        items.push(fields ? { kind: 'H', key, part, fields } : { kind: 'H', key, part });
      }
    }
  } else {
    items.push({
      kind: 'P',
      cube: q.cube,
      parts: keys.parts(res, index),
      zparts: keys.sealingParts(res, index),
      sequence: keys.sealSequence,
      root: `${keys.bucketPrefix(res, index)}:`,
      allowed: delta.allowed,
    });
  }
  for (const list of partsListsOf(q)) {
    items.push({ kind: 'L', list: keys.cube(res, index, list), sealing: keys.sealing(res, index, list) });
  }
  let weight = 0;
  for (const item of items) weight += item.kind === 'P' ? PARTS_WEIGHT : 1;
  return { read, items, weight };
}

/**
 * The parts lists a bucket read of the query reads by name: its cube's (history's parts), and for f with an
 * identity filter the lists of the filter's identity shards (open-f-parts.ts). Without one, the P item reads
 * every shard's list it finds in the parts sets (readBuckets.lua).
 */
function partsListsOf(q: CubeQuery): readonly string[] {
  let lists = partsLists.get(q);
  if (lists === undefined) {
    const shards = q.cube === 'f' && q.identities !== null ? new Set(q.identities.map(shardOf)) : [];
    lists = [partsListSuffix(q.cube), ...[...shards].map((shard) => partsListSuffix('f', shard))];
    partsLists.set(q, lists);
  }
  return lists;
}
const partsLists = new WeakMap<CubeQuery, readonly string[]>();

/**
 * A minute bucket's read: its one hash of the cube (keys.ts `n:<t>:<c>`: no section, no parts, nothing being
 * sealed), whole: t, or f, whose fields name their identities (read-counts.ts keeps the filter's). Minutes
 * keep no other cube (libs/core chooseCube).
 */
function minuteUnitOf(q: CubeQuery, read: BucketRead, keys: ReturnType<typeof apiKeys>): Unit {
  if (q.cube !== 't' && q.cube !== 'f') throw new Error(`minute buckets hold no cube ${q.cube}`);
  const key = keys.cube('n', read.index, q.cube);
  if (q.cube === 't') return { read, items: [{ kind: 'H', key, part: '' }], weight: 1 };
  // An f hash holds a field per (identity, key, tag set, outcome) of the minute: weighed as a parts lookup,
  // so that a call reads about 60 of them (3 hours of the medium tenant: 3 to 4 calls).
  return { read, items: [{ kind: 'H', key, part: '', byPart: true }], weight: PARTS_WEIGHT };
}

/**
 * The units of `reads`: one per bucket, except that the day reads of a month (monthDayGroups) with
 * the compacted hour reads of its days (monthHourGroups), and the compacted hour reads of a day in
 * no such month (dayHourGroups), go with M items and, with `useRecorded` and a record of the
 * rollup's children whose sections the cache holds, instead of their own units. A
 * month's units (and the hours of its grouped days, which the plan may read beside them) are one
 * family; a day's grouped hours and its M item are in the family the hours are in anyway (their
 * month's or day's when the plan reads it, else one of their own). An M item comes after its units.
 */
export function unitsOf(
  q: CubeQuery,
  delta: DeltaPlan,
  reads: readonly BucketRead[],
  keys: ReturnType<typeof apiKeys>,
  cache: SectionStore | undefined,
  useRecorded: boolean,
  compactedThrough: number | null = null,
): Unit[] {
  const cube = sectionCubeOf(q);
  const familyOfDay = new Map<number, string>();
  const familyOfHour = new Map<number, string>();
  const familyOfEdge = new Map<BucketRead, string>();
  const replaced = new Set<BucketRead>();
  // The record a child's unit goes into, by `${res}${index}`.
  const records = new Map<string, Unit[]>();
  const rollups: Unit[] = [];
  // The M items of a rollup `up` for its children `groups` (a month's days and hours, or a day's
  // hours): the records used share one item, each record made has one of its own (so that the
  // hours' stage rule does not keep the days from being recorded).
  const group = (up: 'm' | 'd', parent: number, groups: BucketRead[][], family: string) => {
    const rollupAbsent = () => [keys.parts(up, parent), keys.sealingParts(up, parent)];
    const itemOf = (absent: string[], children: ChildrenRead[]): Item => ({
      kind: 'M',
      key: keys.section(up, parent, 't'),
      absent,
      children,
    });
    const uses: ChildrenRead[] = [];
    let usedRead: BucketRead | undefined;
    for (const children of groups) {
      if (!children || children.length === 0) continue;
      const res = children[0]!.res as ChildResolution;
      const { indexes, id } = shapeOf(children);
      const key = `${keys.section(up, parent, cube)}/${childrenLabel(res)}/${id}`;
      const recorded = useRecorded ? cache!.recorded(key) : undefined;
      const childKeys = recorded && childKeysOf(children, key, (i) => keys.section(res, i, cube));
      const sections = recorded && recordedSections(recorded, indexes, (_, n) => cache!.get(childKeys![n]!));
      if (recorded && sections) {
        for (const read of children) replaced.add(read);
        usedRead ??= children[0];
        uses.push({ kind: 'use', res, key, recorded, reads: children, indexes, sections });
        continue;
      }
      const absent = rollupAbsent();
      for (const index of indexes) absent.push(keys.parts(res, index), keys.sealingParts(res, index));
      // A compacted hour's write may be staged apart from its rollups' (rollup-children.ts), an edge's too.
      if (res !== 'd') absent.push(keys.stage);
      const units: Unit[] = [];
      for (const index of indexes) records.set(`${res}${index}`, units);
      const record = itemOf(absent, [{ kind: 'record', res, key, units }]);
      rollups.push({ read: children[0]!, family, weight: 1 + indexes.length, items: [record] });
    }
    if (usedRead) rollups.push({ read: usedRead, family, weight: 1, items: [itemOf(rollupAbsent(), uses)] });
  };
  if (cache) {
    const groups = groupsOf(reads, compactedThrough);
    for (const { month, days, hours, edges } of groups.months) {
      const family = `M${month}`;
      for (const read of days) familyOfDay.set(read.index, family);
      for (const read of hours) familyOfHour.set(read.index, family);
      for (const read of edges.flat()) familyOfEdge.set(read, family);
      group('m', month, [days, hours, ...edges], family);
    }
    const { days, months } = rollupsRead(reads);
    for (const [day, hours] of groups.days) {
      const family = familyOfDay.get(day) ?? rollupFamily(hours[0]!, days, months) ?? `D${day}`;
      for (const read of hours) familyOfHour.set(read.index, family);
      group('d', day, [hours], family);
    }
  }
  const units: Unit[] = [];
  // A zone's day slices read the same edge hours twice: added to one slice, subtracted from the next
  // (libs/core zone-cover.ts), and the minutes that split a mid-hour edge likewise (edge-minutes.ts).
  // Each hour and minute bucket is read once; a repeat is counted from that reply. Both reads of an
  // hour would be in one call anyway (one bucket, one family: chunksOf), so the counts are the same;
  // a minute's two would not, and an event counted in between would be added and not subtracted.
  // A billing zone's edge likewise: subtracted from one local slice, added to the next (libs/core planner-billing.ts).
  const repeated = {
    h: new Map<number, Unit>(),
    n: new Map<number, Unit>(),
    edges: new Map<string, Map<number, Unit>>(),
  };
  const repeatsOf = (res: BucketRead['res']): Map<number, Unit> | undefined => {
    if (res === 'h' || res === 'n') return repeated[res];
    if (!isEdgeResolution(res)) return undefined;
    let seen = repeated.edges.get(res);
    if (!seen) repeated.edges.set(res, (seen = new Map()));
    return seen;
  };
  for (const read of reads) {
    if (replaced.has(read)) continue;
    const seen = repeatsOf(read.res);
    const first = seen?.get(read.index);
    if (first) {
      (first.also ??= []).push(read);
      continue;
    }
    const unit = unitOf(q, delta, read, keys, cache);
    seen?.set(read.index, unit);
    const family =
      read.res === 'd'
        ? familyOfDay.get(read.index)
        : read.res === 'h'
          ? (familyOfHour.get(read.index) ?? familyOfDay.get(dayOfHour(read.index)))
          : familyOfEdge.get(read);
    if (family !== undefined) unit.family = family;
    records.get(`${read.res}${read.index}`)?.push(unit);
    units.push(unit);
  }
  return [...units, ...rollups];
}

/**
 * Work per readBuckets call, in units of about one hash read (a section, a hash, or a few for
 * a parts lookup: PARTS_WEIGHT). A call blocks Redis while it runs (about 9 µs per hash plus a
 * fraction of a µs per field, so 500 hashes are several ms; a section is one memcpy); this bounds
 * it, except for one family larger than this, which is never split.
 */
export const READ_MAX_KEYS = 500;

/**
 * The bucket reads in readBuckets calls of at most `maxKeys` work, each call made of whole
 * families. A family is the coarsest bucket read around a bucket (its month when the month
 * rollup is read, else its day when the day rollup is read, else the bucket itself): only
 * buckets of one family can count the same hour twice (or subtract an hour their rollup lacks)
 * if a compaction or a late event lands between their reads, so each family is read in one
 * atomic call, with the compaction point. A bucket's section, sealing and delta hashes are
 * always read in one call (a seal moves counts between them).
 */
export function chunksOf(units: readonly Unit[], reads: readonly BucketRead[], maxKeys: number): Unit[][] {
  const { days, months } = rollupsRead(reads);
  const own = ({ read, family }: Unit): string =>
    family ?? rollupFamily(read, days, months) ?? `${read.res}${read.index}`;
  const joined = edgeFamilies(units, own);
  const familyOf = (u: Unit): string => joined.get(own(u)) ?? own(u);
  const families = new Map<string, Unit[]>();
  for (const u of units) {
    const family = familyOf(u);
    const members = families.get(family);
    if (members) members.push(u);
    else families.set(family, [u]);
  }
  const chunks: Unit[][] = [];
  let chunk: Unit[] = [];
  let weight = 0;
  for (const members of families.values()) {
    const add = members.reduce((sum, u) => sum + u.weight, 0);
    if (chunk.length > 0 && weight + add > maxKeys) {
      chunks.push(chunk);
      chunk = [];
      weight = 0;
    }
    for (const u of members) chunk.push(u);
    weight += add;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
