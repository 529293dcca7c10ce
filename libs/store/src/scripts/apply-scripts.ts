/**
 * The two Lua commands that write counters (docs/store-v2.md "Writing"), each with its KEYS/ARGV
 * builder and its reply decoder side by side: applyApiBatch.lua (one API's increments of a batch,
 * CAS on off, cmp and the dictionaries) and applyStagedChunk-5.lua (one staged chunk of them).
 * The layouts are documented in the scripts' headers; a script and its builder change together.
 * apply.ts runs them.
 *
 * One flat call per API and batch: Redis runs ~60k script calls/s but ~1M HINCRBY/s inside one,
 * so the per-call overhead is paid once per API, not once per increment.
 */
import type { ChainableCommander } from 'ioredis';
import type { ApiIncrements } from '../aggregate';
import type { AlertIncrements } from '../alert-detection';
import { command } from '../commands';
import type { RedisClient } from '../connection';
import { alertBase, alertOfBase, apiBase, ofBase, ofBucket, type KeySpace } from '../keys';
import { queueCommand } from '../pipeline';
import { noneArg, noneOf } from './none';
import { stageIncrements } from '../staged-chunks';

/** One applyApiBatch call: one API's increments of a batch, with the CAS they are applied under. */
export interface ApplyCall {
  space: KeySpace;
  apiId: string;
  increments: ApiIncrements;
  cas: ApplyCas;
  /** Writes the call makes itself; the other hour buckets are staged (default: no bound). */
  maxWrites?: number;
  /** The alert counters' increments (docs/alerts.md "Detection"); absent: the rules' version is not checked. */
  alerts?: AlertIncrements;
}

export interface ApplyCas {
  /** "<topic>/<partition>" (keys.ts partitionField) */
  offsetField: string;
  /** off[api] this writer believes Redis holds; null = none. */
  expectedOff: number | null;
  /** The batch's last offset: off[api] after the call. */
  newOff: number;
  /** cmp this writer believes Redis holds (decides hour vs rollups); null = none. */
  expectedCmp: number | null;
}

/**
 * Arguments of the variable-key command (numkeys, KEYS..., ARGV...), and how many chunks it stages
 * (staged-chunks.ts: the hour buckets and alert members that do not fit when the call would make more than
 * `maxWrites` writes).
 */
export function applyApiBatchArgs(call: ApplyCall): { args: (string | number | Buffer)[]; staged: number } {
  const { space, apiId, increments: inc, cas, maxWrites = Infinity, alerts } = call;
  // Key names from the bases (keys.ts ofBase), not apiKeys' object of builders: this runs once per API and
  // batch, thousands of times per batch on the long tail (#41). One array, numkeys first, KEYS then ARGV.
  const base = apiBase(space, apiId);
  const alertsBase = alertBase(space.prefix, apiId);
  const { buckets, chunks, alerts: called } = stageIncrements(inc, maxWrites, alerts);
  const counters = called?.counters ?? [];
  const [hourIndex, dayIndex, monthIndex] = ofBase.bucketIndexes(base);
  const args: (string | number | Buffer)[] = [
    0, // numkeys, set below
    ofBase.offsets(base),
    ofBase.compactedThrough(base),
    ofBase.dict(base, 'k'),
    ofBase.dict(base, 'i'),
    ofBase.dict(base, 's'),
    hourIndex,
    dayIndex,
    monthIndex,
    ofBase.dictIndex(base, 'k'),
    ofBase.dictIndex(base, 'i'),
    ofBase.dictIndex(base, 's'),
    ofBase.dirty(base),
    ofBase.stage(base),
    alertOfBase.rulesVersion(alertsBase),
    alertOfBase.crossings(alertsBase),
    alertOfBase.levels(alertsBase, alerts?.rulesVersion ?? 0),
    ofBase.billingZoneSince(base),
    `${base}:carry`,
  ];
  for (const { r, t, cubes, parts } of buckets) {
    const prefix = ofBase.bucketPrefix(base, r, t);
    if (r !== 'n') args.push(ofBucket.parts(prefix)); // a minute bucket has no parts set (keys.ts)
    for (const suffix of cubes.keys()) args.push(ofBucket.cube(prefix, suffix));
    for (const suffix of parts.keys()) args.push(ofBucket.cube(prefix, suffix));
  }
  for (const c of counters) {
    args.push(
      ofBase.alertCounter(base, c.counterId, c.periodStart),
      alertOfBase.recorded(alertsBase, c.period, c.periodStart),
    );
  }
  args[0] = args.length - 1;
  args.push(
    cas.offsetField,
    noneArg(cas.expectedOff),
    cas.newOff,
    noneArg(cas.expectedCmp),
    inc.required.k,
    inc.required.i,
    inc.required.s,
    buckets.length,
    inc.keepUntil,
    chunks.length,
    noneArg(alerts === undefined ? null : alerts.rulesVersion),
    counters.length,
    alerts?.now ?? 0,
    (alerts?.counters.length ?? 0) > 0 ? 1 : 0,
    inc.billingZones ?? -1,
  );
  for (const chunk of chunks) args.push(chunk);
  for (const { r, t, expireAt, cubes, parts } of buckets) {
    args.push(r, t, expireAt, cubes.size);
    for (const [suffix, fields] of cubes) {
      args.push(suffix, fields.size);
      for (const [field, n] of fields) args.push(field, n);
    }
    args.push(parts.size);
    for (const [suffix, section] of parts) args.push(suffix, section);
  }
  for (const c of counters) {
    args.push(c.counterId, c.period, c.periodStart, c.expireAt, c.levels.length);
    for (const level of c.levels) args.push(level);
    args.push(c.members.size);
    for (const [member, n] of c.members) args.push(member, n);
  }
  return { args, staged: chunks.length };
}

export type ApplyResult =
  | { status: 'ok' }
  /** off[api] Redis holds (null: none). */
  | { status: 'off'; actual: number | null }
  /** cmp Redis holds (null: none). */
  | { status: 'cmp'; actual: number | null }
  | { status: 'dict'; dict: string; length: number }
  /** A rebuild retired the API in this generation: it moves to `generation`. */
  | { status: 'retired'; generation: number }
  /** The API's alert rules are not the version the alert increments were computed with (0: no rules yet). */
  | { status: 'rules'; version: number };

/** applyApiBatch's reply. */
export function parseApplyReply(reply: unknown): ApplyResult {
  if (!Array.isArray(reply)) throw new Error(`applyApiBatch: unexpected reply ${String(reply)}`);
  const [status, a, b] = reply as [string, string | number | undefined, number | undefined];
  switch (status) {
    case 'ok':
      return { status };
    case 'off':
    case 'cmp':
      return { status, actual: noneOf(a) };
    case 'dict':
      return { status, dict: String(a), length: Number(b) };
    case 'retired':
      return { status, generation: Number(a) };
    case 'rules':
      return { status, version: Number(a) };
    default:
      throw new Error(`applyApiBatch: unexpected status ${String(status)}`);
  }
}

/**
 * Queues one applyApiBatch call on a pipeline (its reply: parseApplyReply); returns how many chunks
 * it stages (applyStagedChunk applies them).
 */
export function queueApplyApiBatch(
  redis: RedisClient,
  pipeline: ChainableCommander,
  call: ApplyCall,
): number {
  const { args, staged } = applyApiBatchArgs(call);
  queueCommand(redis, pipeline, 'applyApiBatch', args);
  return staged;
}

/**
 * applyApiBatch.lua alone (no pipeline, no chunk applied after it): what a writer that dies right
 * after its call leaves behind. The writers go through apply.ts.
 */
export async function applyApiBatch(
  redis: RedisClient,
  call: ApplyCall,
): Promise<{ result: ApplyResult; staged: number }> {
  const { args, staged } = applyApiBatchArgs(call);
  const reply = await command<unknown>(redis, 'applyApiBatch')(...args);
  return { result: parseApplyReply(reply), staged };
}

/** KEYS and ARGV of applyStagedChunk-5.lua: every call of one API takes the same. */
function stagedChunkArgs(space: KeySpace, apiId: string): string[] {
  const base = apiBase(space, apiId);
  return [
    ofBase.stage(base),
    ...ofBase.bucketIndexes(base),
    ofBase.dirty(base),
    ofBase.bucketRoot(base),
    alertBase(space.prefix, apiId),
  ];
}

/** applyStagedChunk's reply: the chunks still waiting. */
export const decodeStagedChunkReply = (reply: unknown): number => Number(reply);

/** applyStagedChunk-5.lua: applies the API's oldest staged chunk; returns the chunks still waiting. */
export async function applyStagedChunk(redis: RedisClient, space: KeySpace, apiId: string): Promise<number> {
  return decodeStagedChunkReply(
    await command<unknown>(redis, 'applyStagedChunk')(...stagedChunkArgs(space, apiId)),
  );
}

/** Queues one applyStagedChunk call on a pipeline (its reply: decodeStagedChunkReply). */
export function queueApplyStagedChunk(
  redis: RedisClient,
  pipeline: ChainableCommander,
  space: KeySpace,
  apiId: string,
): void {
  queueCommand(redis, pipeline, 'applyStagedChunk', stagedChunkArgs(space, apiId));
}
