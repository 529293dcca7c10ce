/**
 * What planning a query's reads needs besides libs/core's pure planReads: the plans made lately
 * (memoPlan), each with the compaction point it was made with, and the number of groups the
 * dictionaries allow each grouped dimension (groupSources: the row bound and the pool's choice).
 */
import { planReads, type ParsedQuery, type PlanInput, type ReadPlan } from '@va/core';
import type { CubeQuery, ReadDictionaries } from '@va/store';

function distinctTags(sets: readonly number[], dicts: ReadDictionaries): number {
  const seen = new Set<string>();
  for (const code of sets) for (const tag of dicts.tagSet(code) ?? []) seen.add(tag);
  return seen.size;
}

function distinctRegions(sets: readonly number[], dicts: ReadDictionaries): number {
  const seen = new Set<string>();
  for (const code of sets) {
    const region = dicts.region(code);
    if (region !== undefined) seen.add(region);
  }
  return seen.size;
}

/** What the dictionaries (after the filters) allow each grouped dimension. */
export function groupSources(cube: CubeQuery, dicts: ReadDictionaries, query: ParsedQuery) {
  const g = query.groupBy;
  const bySets = g.tag || g.tags || g.region === true;
  // Without a tag filter: every set, counted from the dictionary (no walk over the sets per request).
  const tags = !g.tag ? 0 : cube.sets === null ? dicts.tagCount() : distinctTags(cube.sets, dicts);
  const regions = !g.region
    ? 0
    : cube.sets === null
      ? dicts.regionCount()
      : distinctRegions(cube.sets, dicts);
  return {
    keys: cube.keys?.length ?? dicts.size('k'),
    identities: cube.identities?.length ?? dicts.size('i'),
    tagSets: bySets ? (cube.sets?.length ?? dicts.size('s')) : 0,
    tags,
    regions,
  };
}

/**
 * Plans made lately, by their whole input (planReads is pure, its plans are never changed):
 * planning a range since 1970 takes milliseconds of the main thread, and a dashboard or a
 * client retrying a refused query asks the same range again and again. Hours change the
 * input (horizons, data-through hour), so entries age out by themselves.
 */
const PLAN_MEMO_ENTRIES = 64;
const planMemo = new Map<string, ReadPlan>();

/** The compaction point each memoised plan was made with. */
const planCompactedThrough = new WeakMap<ReadPlan, number | null>();

/** planReads(input), from the memo when the same input was planned lately. */
export function memoPlan(input: PlanInput): ReadPlan {
  const { horizons: hz } = input;
  const key = [
    input.startHour,
    input.endHour,
    input.granularity,
    input.compactedThrough,
    hz.hour,
    hz.day,
    hz.month,
    input.dataThroughHour,
    input.timeZone,
    input.firstMinuteKept,
    input.billingZone?.n,
    input.billingZone?.since,
    input.billingZone?.firstMonthEdgeDay,
  ].join(' ');
  let plan = planMemo.get(key);
  if (plan) {
    planMemo.delete(key); // most recently used last
  } else {
    plan = planReads(input);
    if (planMemo.size >= PLAN_MEMO_ENTRIES) planMemo.delete(planMemo.keys().next().value!);
    planCompactedThrough.set(plan, input.compactedThrough);
  }
  planMemo.set(key, plan);
  return plan;
}

/** The compaction point a plan of memoPlan was made with (undefined: not one of its plans). */
export const plannedWith = (plan: ReadPlan): number | null | undefined => planCompactedThrough.get(plan);
