/**
 * Classifying a batch (pure): every message gets one verdict.
 *
 *   count        valid, new for its API, codes known: added to the API's TupleCounter
 *   skip         Redis already holds it (offset <= wm, or <= off[api]; or rebuild --since)
 *   defer        valid, but the worker does not know enough yet (API owner, off, cmp, a code, or its
 *                billing zones, read at most BILLING_ZONE_CACHE_MS ago):
 *                judged again once the store answered (classifyDeferred)
 *   dead-letter  malformed, expired, or naming another workspace than the API's owner
 *
 * One verdict per record, however often it is processed (a crash, a rebuild): "future" is judged
 * against the record's Kafka timestamp, "expired" only after the per-API offset check (a record
 * counted before is skipped on replay, whatever the clock says now).
 */
import { minuteOf, type EdgeFinder } from '@va/core';
import { emptyMissing, TupleCounter, type ApiCodes, type MissingValues } from '@va/store';
import type { DeadLetter } from '../dead-letter';
import { decodeEvent, expiredDetail, isExpired, type DecodeContext, type ValidEvent } from '../decode';
import { isCovered, type BatchMessage, type HourIndex, type Offset, type PartitionBatch } from './types';

/**
 * What the worker knows of one API while it classifies; `undefined` = not known to this worker
 * (ask the store), as opposed to `null` = known to be none.
 */
export interface ApiView {
  owner: string | undefined;
  off: Offset | undefined;
  cmp: HourIndex | undefined;
  codes: ApiCodes;
  /** The edges of the API's billing zones (billing-zones.ts; empty: none); undefined: not known, or too old. */
  zones: EdgeFinder[] | undefined;
}

export type EventVerdict = 'count' | 'skip' | 'defer' | 'expired' | 'workspace_mismatch';

/** The dictionary codes of an event's key, identity (-1: none) and tag set. */
export interface EventCodes {
  k: number;
  i: number;
  s: number;
}

/** Sets `out` to the event's codes when the API's dictionaries hold all three; false when not. */
export function codesOfEvent(e: ValidEvent, codes: ApiCodes, out: EventCodes): boolean {
  const k = codes.k.get(e.keyId);
  const s = codes.s.get(e.tagSet);
  const i = e.identity === undefined ? -1 : codes.i.get(e.identity);
  if (k === undefined || s === undefined || i === undefined) return false;
  out.k = k;
  out.i = i;
  out.s = s;
  return true;
}

/**
 * The verdict of one valid event of offset `offset` (the order of the checks is the rule). On
 * 'count', `codes` holds the event's codes (one lookup per dictionary, shared with counting).
 */
export function judgeEvent(
  e: ValidEvent,
  offset: number,
  api: ApiView,
  ctx: DecodeContext,
  codes: EventCodes,
): EventVerdict {
  if (api.owner === undefined || api.off === undefined || api.cmp === undefined) return 'defer';
  if (isCovered(offset, api.off)) return 'skip';
  if (isExpired(e, ctx)) return 'expired';
  if (e.workspaceId !== api.owner) return 'workspace_mismatch';
  return api.zones !== undefined && codesOfEvent(e, api.codes, codes) ? 'count' : 'defer';
}

/**
 * Adds a countable event to its API's counter, with the codes judgeEvent or codesOfEvent gave; an event within
 * the minute retention (ctx.minutesFrom) to its minute's counts too, and to the edges of its API's billing
 * zones (`zones`, the view's) that hold it.
 */
export function countEvent(
  counter: TupleCounter,
  e: ValidEvent,
  codes: EventCodes,
  ctx: DecodeContext,
  zones: EdgeFinder[] | undefined,
): void {
  if (e.time >= ctx.minutesFrom)
    counter.addWithMinute(e.hour, minuteOf(e.time), codes.k, codes.i, codes.s, e.o);
  else counter.add(e.hour, codes.k, codes.i, codes.s, e.o);
  if (zones !== undefined && zones.length > 0) countEdges(counter, e.time, e.o, codes, zones);
  // Which zones hold every event of the batch (applyApiBatch records the zones' since from it), and the
  // finders with which expand counts the hours their edges hold whole.
  counter.countedInZones(zones ?? NO_ZONES);
}

export interface Deferred {
  event: ValidEvent;
  offset: number;
  message: BatchMessage;
}

export interface Classified {
  /** Per API seen with a valid event: its counter (possibly empty). */
  counters: Map<string, TupleCounter>;
  deferred: Deferred[];
  dead: DeadLetter[];
  skipped: number;
  /**
   * APIs with events skipped because off[api] covers them: an earlier commit applied them without moving
   * the watermark (its replica wait or its watermark failed), so nothing says yet that a replica holds them.
   */
  foundApplied: Set<string>;
}

export function deadLetterOf(
  batch: { topic: string; partition: number },
  m: BatchMessage,
  reason: DeadLetter['reason'],
  detail: string,
): DeadLetter {
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: m.offset,
    key: m.key,
    value: m.value,
    headers: m.headers,
    reason,
    detail,
  };
}

const mismatchDetail = (apiId: string) => `API ${apiId} belongs to another workspace`;

/**
 * First pass over a batch: messages at or below `wm` are left out, the rest decoded and judged
 * with what `viewOf` knows. `skipEvent`: rebuild --since (valid events the old generation carried).
 */
export function classifyBatch(
  batch: PartitionBatch,
  wm: Offset,
  ctx: DecodeContext,
  viewOf: (apiId: string) => ApiView,
  skipEvent?: (event: ValidEvent, offset: number) => boolean,
): Classified {
  const out: Classified = {
    counters: new Map(),
    deferred: [],
    dead: [],
    skipped: 0,
    foundApplied: new Set(),
  };
  // What the worker knows does not change during this synchronous pass, and a batch's events mostly
  // come in runs of one API: one view per run instead of one per event.
  // The same holds for the API's counter.
  let viewApi: string | undefined;
  let view: ApiView | undefined;
  let counterApi: string | undefined;
  let counter: TupleCounter | undefined;
  const codes: EventCodes = { k: 0, i: 0, s: 0 };
  for (const m of batch.messages) {
    const offset = Number(m.offset);
    if (isCovered(offset, wm)) continue;
    const e = decodeEvent(m.value, ctx, { receivedAt: Number(m.timestamp), checkExpiry: false });
    if (!e.ok) {
      out.dead.push(deadLetterOf(batch, m, e.reason, e.detail));
      continue;
    }
    if (skipEvent?.(e, offset)) {
      out.skipped++;
      continue;
    }
    if (e.apiId !== counterApi || counter === undefined) {
      counter = out.counters.get((counterApi = e.apiId));
      if (!counter) out.counters.set(e.apiId, (counter = new TupleCounter()));
    }
    if (e.apiId !== viewApi || view === undefined) view = viewOf((viewApi = e.apiId));
    switch (judgeEvent(e, offset, view, ctx, codes)) {
      case 'count':
        countEvent(counter, e, codes, ctx, view.zones);
        break;
      case 'skip':
        out.skipped++;
        out.foundApplied.add(e.apiId);
        break;
      case 'defer':
        out.deferred.push({ event: e, offset, message: m });
        break;
      case 'expired':
        out.dead.push(deadLetterOf(batch, m, 'expired', expiredDetail(e.time)));
        break;
      case 'workspace_mismatch':
        out.dead.push(deadLetterOf(batch, m, 'workspace_mismatch', mismatchDetail(e.apiId)));
        break;
    }
  }
  return out;
}

/** What the deferred events lack of the store: registration, progress and billing zones, per API. */
export function unknownsOf(
  deferred: readonly Deferred[],
  viewOf: (apiId: string) => ApiView,
): {
  unregistered: { apiId: string; workspaceId: string }[];
  unknownProgress: string[];
  unknownZones: string[];
} {
  const unregistered: { apiId: string; workspaceId: string }[] = [];
  const unknownProgress: string[] = [];
  const unknownZones: string[] = [];
  const seen = new Set<string>();
  for (const { event } of deferred) {
    if (seen.has(event.apiId)) continue;
    seen.add(event.apiId);
    const v = viewOf(event.apiId);
    if (v.owner === undefined) unregistered.push({ apiId: event.apiId, workspaceId: event.workspaceId });
    if (v.off === undefined || v.cmp === undefined) unknownProgress.push(event.apiId);
    if (v.zones === undefined) unknownZones.push(event.apiId);
  }
  return { unregistered, unknownProgress, unknownZones };
}

export interface DeferredVerdicts {
  /** Events to count once their missing codes are assigned. */
  countable: Deferred[];
  /** Values without a code, per API. */
  missing: Map<string, MissingValues>;
  dead: DeadLetter[];
  skipped: number;
  /** As Classified.foundApplied. */
  foundApplied: Set<string>;
}

/**
 * Second pass over the deferred events, once owner, off and cmp of their APIs are known: each is
 * skipped, dead-lettered, or countable (possibly after codes are assigned to its missing values).
 */
export function classifyDeferred(
  batch: { topic: string; partition: number },
  deferred: readonly Deferred[],
  ctx: DecodeContext,
  viewOf: (apiId: string) => ApiView,
): DeferredVerdicts {
  const out: DeferredVerdicts = {
    countable: [],
    missing: new Map(),
    dead: [],
    skipped: 0,
    foundApplied: new Set(),
  };
  const codes: EventCodes = { k: 0, i: 0, s: 0 };
  for (const d of deferred) {
    const e = d.event;
    const view = viewOf(e.apiId);
    const verdict = judgeEvent(e, d.offset, view, ctx, codes);
    if (verdict === 'skip') {
      out.skipped++;
      out.foundApplied.add(e.apiId);
    } else if (verdict === 'expired')
      out.dead.push(deadLetterOf(batch, d.message, 'expired', expiredDetail(e.time)));
    else if (verdict === 'workspace_mismatch')
      out.dead.push(deadLetterOf(batch, d.message, 'workspace_mismatch', mismatchDetail(e.apiId)));
    else if (
      view.owner === undefined ||
      view.off === undefined ||
      view.cmp === undefined ||
      view.zones === undefined
    )
      throw new Error(`classifyDeferred: progress or billing zones of ${e.apiId} still unknown`);
    else {
      out.countable.push(d);
      if (verdict === 'defer') addMissing(out.missing, e, view.codes);
    }
  }
  return out;
}

function addMissing(missing: Map<string, MissingValues>, e: ValidEvent, codes: ApiCodes): void {
  let miss = missing.get(e.apiId);
  if (!codes.k.has(e.keyId)) (miss ??= emptyMissing()).k.add(e.keyId);
  if (!codes.s.has(e.tagSet)) (miss ??= emptyMissing()).s.add(e.tagSet);
  if (e.identity !== undefined && !codes.i.has(e.identity)) (miss ??= emptyMissing()).i.add(e.identity);
  if (miss) missing.set(e.apiId, miss);
}

const NO_ZONES: readonly EdgeFinder[] = [];

/**
 * Counts a countable event in every edge of its API's zones whose window holds its time but not its whole
 * hour (Kolkata's 18:00-19:00 UTC): expand counts the hours an edge holds whole from the hour's tuples.
 */
function countEdges(
  counter: TupleCounter,
  time: number,
  o: number,
  codes: EventCodes,
  finders: EdgeFinder[],
) {
  for (const finder of finders) {
    for (const edge of finder.cut(time)) counter.addEdge(edge.res, edge.index, codes.k, codes.i, codes.s, o);
  }
}
