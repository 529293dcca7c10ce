/**
 * Flattens one API's increments into the KEYS and ARGV of applyApiBatch.lua (pure), and reads
 * its reply. The layout is documented in the script's header; both must change together.
 * One flat call per API and batch: Redis runs ~60k script calls/s but ~1M HINCRBY/s inside one,
 * so the per-call overhead is paid once per API, not once per increment.
 */
import type { ApiIncrements } from './aggregate';
import { apiKeys, type KeySpace } from './keys';
import { stageIncrements } from './staged-chunks';

export interface ApplyCas {
  /** "<topic>/<partition>" (keys.ts partitionField) */
  offsetField: string;
  /** off[api] this writer believes Redis holds; -1 = none. */
  expectedOff: number;
  /** The batch's last offset: off[api] after the call. */
  newOff: number;
  /** cmp this writer believes Redis holds (decides hour vs rollups); -1 = none. */
  expectedCmp: number;
}

/**
 * Arguments of the variable-key command (numkeys, KEYS..., ARGV...), and how many chunks it stages
 * (staged-chunks.ts: the hour buckets when the call would make more than `maxWrites` writes).
 */
export function applyApiBatchArgs(
  space: KeySpace,
  apiId: string,
  inc: ApiIncrements,
  cas: ApplyCas,
  maxWrites = Infinity,
): { args: (string | number | Buffer)[]; staged: number } {
  const keys = apiKeys(space, apiId);
  const { buckets, chunks } = stageIncrements(inc, maxWrites);
  const keyList: string[] = [
    keys.offsets,
    keys.compactedThrough,
    keys.dict('k'),
    keys.dict('i'),
    keys.dict('s'),
    keys.bucketIndex('h'),
    keys.bucketIndex('d'),
    keys.bucketIndex('m'),
    keys.dictIndex('k'),
    keys.dictIndex('i'),
    keys.dictIndex('s'),
    keys.dirty,
    keys.stage,
  ];
  const argv: (string | number | Buffer)[] = [
    cas.offsetField,
    cas.expectedOff,
    cas.newOff,
    cas.expectedCmp,
    inc.required.k,
    inc.required.i,
    inc.required.s,
    buckets.length,
    inc.keepUntil,
    chunks.length,
    ...chunks,
  ];
  for (const { r, t, expireAt, cubes, parts } of buckets) {
    keyList.push(keys.parts(r, t));
    argv.push(r, t, expireAt, cubes.size);
    for (const [suffix, fields] of cubes) {
      keyList.push(keys.cube(r, t, suffix));
      argv.push(suffix, fields.size);
      for (const [field, n] of fields) argv.push(field, n);
    }
    argv.push(parts.size);
    for (const [suffix, section] of parts) {
      keyList.push(keys.cube(r, t, suffix));
      argv.push(suffix, section);
    }
  }
  return { args: [keyList.length, ...keyList, ...argv], staged: chunks.length };
}

export type ApplyResult =
  | { status: 'ok' }
  | { status: 'off'; actual: number }
  | { status: 'cmp'; actual: number }
  | { status: 'dict'; dict: string; length: number }
  /** A rebuild retired the API in this generation: it moves to `generation`. */
  | { status: 'retired'; generation: number };

export function parseApplyReply(reply: unknown): ApplyResult {
  if (!Array.isArray(reply)) throw new Error(`applyApiBatch: unexpected reply ${String(reply)}`);
  const [status, a, b] = reply as [string, string | number | undefined, number | undefined];
  switch (status) {
    case 'ok':
      return { status };
    case 'off':
    case 'cmp':
      return { status, actual: Number(a) };
    case 'dict':
      return { status, dict: String(a), length: Number(b) };
    case 'retired':
      return { status, generation: Number(a) };
    default:
      throw new Error(`applyApiBatch: unexpected status ${String(status)}`);
  }
}
