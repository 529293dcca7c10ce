/**
 * Verification helpers of the ingest tests: the counts a list of events must produce (computed
 * independently of the store's encoders), and a comparison with every cube read back from Redis.
 */
import type { Kafka } from 'kafkajs';
import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import { hourOf } from '@va/core';
import {
  dumpApiCounts,
  emptyDecodedCounts,
  fullKey,
  readWatermarks,
  type DecodedCounts,
  type KeySpace,
  type Resolution,
  type RedisClient,
} from '@va/store';

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
    const tags = [...new Set(e.tags ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(',');
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
export async function storedTotal(
  redis: RedisClient,
  space: KeySpace,
  apiIds: readonly string[],
): Promise<number> {
  let total = 0;
  for (const apiId of apiIds) {
    const { sum } = await dumpApiCounts(redis, space, apiId, 'h');
    total += sum.total.reduce((a, b) => a + b, 0);
  }
  return total;
}

export const hourKey = (e: VerificationEvent) => hourOf(e.time);

/** Last offset of every partition of the topics (high watermark - 1; -1 = empty). */
export async function topicEnds(
  kafka: Kafka,
  topics: readonly string[],
): Promise<{ topic: string; partition: number; last: number }[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const out: { topic: string; partition: number; last: number }[] = [];
    for (const topic of topics) {
      for (const p of await admin.fetchTopicOffsets(topic)) {
        out.push({ topic, partition: p.partition, last: Number(p.high) - 1 });
      }
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

/** True once every partition's wm in Redis reached the partition's last offset. */
export async function caughtUp(
  redis: RedisClient,
  space: KeySpace,
  ends: readonly { topic: string; partition: number; last: number }[],
): Promise<boolean> {
  const wms = await readWatermarks(redis, space, ends);
  return ends.every((e, n) => wms[n]! >= e.last);
}
