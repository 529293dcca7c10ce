/**
 * Verification helpers of the exactness tests: the counts a list of events must produce (computed
 * independently of the store's encoders), a comparison of two, and a comparison with every cube read back
 * from Redis.
 */
import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import type { RedisClient } from '../connection';
import type { KeySpace, Resolution } from '../keys';
import { readWatermarks } from '../watermark';
import { dumpApiCounts, emptyDecodedCounts, fullKey, type DecodedCounts } from './cube-dump';

const outcomeIndex = new Map<string, number>(OUTCOMES.map((o, n) => [o, n]));

function bump(map: Map<string, number[]>, key: string, o: number): void {
  let counts = map.get(key);
  if (!counts) {
    counts = new Array<number>(9).fill(0);
    map.set(key, counts);
  }
  counts[o]!++;
}

/** Expected counts per API (all times together), straight from the events. */
export function expectedCounts(
  events: Iterable<VerificationEvent>,
  filter: (e: VerificationEvent) => boolean = () => true,
): Map<string, DecodedCounts> {
  const out = new Map<string, DecodedCounts>();
  for (const e of events) {
    if (!filter(e)) continue;
    let c = out.get(e.apiId);
    if (!c) {
      c = emptyDecodedCounts();
      out.set(e.apiId, c);
    }
    const o = outcomeIndex.get(e.outcome)!;
    const set = [...new Set(e.tags ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(',');
    // The region follows U+001F in the tag-set value; none (or an empty one) adds nothing.
    const tags = e.region ? `${set}\u001f${e.region}` : set;
    const identity = e.identity ? `${e.identity.id}\n${e.identity.externalId}` : '';
    c.total[o]!++;
    bump(c.byKey, e.keyId, o);
    bump(c.byTagSet, tags, o);
    if (e.identity) bump(c.byIdentity, identity, o);
    bump(c.full, fullKey(e.keyId, tags, identity), o);
  }
  return out;
}

/** Differences between two decoded counts ("" when equal), capped for readable failures. */
export function diffCounts(
  label: string,
  expected: DecodedCounts,
  actual: DecodedCounts,
  max = 10,
): string[] {
  const out: string[] = [];
  const same = (a: number[] | undefined, b: number[] | undefined) =>
    (a ?? []).every((v, n) => v === (b?.[n] ?? 0)) && (b ?? []).every((v, n) => v === (a?.[n] ?? 0));
  if (!same(expected.total, actual.total))
    out.push(`${label} total: expected ${expected.total} got ${actual.total}`);
  for (const dim of ['byKey', 'byIdentity', 'byTagSet', 'full'] as const) {
    const keys = new Set([...expected[dim].keys(), ...actual[dim].keys()]);
    for (const key of keys) {
      if (!same(expected[dim].get(key), actual[dim].get(key))) {
        out.push(
          `${label} ${dim} ${JSON.stringify(key)}: expected ${expected[dim].get(key) ?? '-'} got ${actual[dim].get(key) ?? '-'}`,
        );
        if (out.length >= max) return out;
      }
    }
  }
  return out;
}

/** Reads every cube of every API back and compares it with the expected counts. */
export async function verifyStored(
  redis: RedisClient,
  space: KeySpace,
  expected: Map<string, DecodedCounts>,
  r: Resolution = 'h',
): Promise<string[]> {
  const problems: string[] = [];
  for (const [apiId, counts] of expected) {
    const { sum } = await dumpApiCounts(redis, space, apiId, r);
    problems.push(...diffCounts(apiId, counts, sum));
    if (problems.length > 20) break;
  }
  return problems;
}

/** Sum of the t cube of every API at resolution r (cheap progress probe). */
/** True once every partition's wm in Redis reached the partition's last offset (ends: testkit's topicEnds). */
export async function caughtUp(
  redis: RedisClient,
  space: KeySpace,
  ends: readonly { topic: string; partition: number; last: number }[],
): Promise<boolean> {
  const wms = await readWatermarks(redis, space, ends);
  return ends.every((e, n) => (wms[n] ?? -1) >= e.last);
}
