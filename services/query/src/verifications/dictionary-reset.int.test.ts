// Issue #17.2: the query service keeps each API's dictionaries in memory. A Redis that restarts
// and loses the tail of its AOF forgets the last codes it handed out, and gives those codes to
// other values afterwards. The cached identity and tag-set indexes must follow (not only the
// code -> value lists), or `externalId=X` answers another identity's counts and tag sets get
// other names until the process restarts.
//
// The loss is made the way Redis loses an AOF tail: a snapshot of every key of the API (DUMP,
// with its TTL) after the first events, more events, then every key restored to the snapshot.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { HOUR_MS } from '@va/core';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { LONG_RETENTION } from '../testing/fixtures';
import { expectOracleAnswer } from '../testing/oracle-answer';

let h: QueryHarness;
let key: string;

beforeAll(async () => {
  h = await queryHarness('dictionary-reset', { now: Date.UTC(2026, 2, 18, 10, 30), env: LONG_RETENTION });
  key = await h.rootKey();
  await h.registerApi('api_dict');
});
afterAll(async () => {
  await h.close();
});

let n = 0;
const event = (externalId: string, tags: string[]): VerificationEvent => ({
  requestId: `r${n++}`,
  time: h.now - 2 * HOUR_MS,
  workspaceId: 'ws_1',
  apiId: 'api_dict',
  keyId: 'key_1',
  outcome: 'VALID',
  identity: { id: `id_${externalId}`, externalId },
  tags,
});

async function keysOfPrefix(): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of h.redis.scanStream({ match: `${h.config.keyPrefix}:*`, count: 1000 })) {
    out.push(...(batch as string[]));
  }
  return out;
}

/** Every key of the harness' prefix with its value (DUMP) and remaining time to live. */
async function snapshot(): Promise<[string, Buffer, number][]> {
  const keys = await keysOfPrefix();
  const out: [string, Buffer, number][] = [];
  for (const k of keys) {
    const [dump, ttl] = await Promise.all([h.redis.dumpBuffer(k), h.redis.pttl(k)]);
    if (dump) out.push([k, dump, ttl]);
  }
  return out;
}

/** Redis as it restarts after losing its AOF tail: exactly the snapshot, nothing written since. */
async function restore(keys: [string, Buffer, number][]): Promise<void> {
  const now = await keysOfPrefix();
  if (now.length > 0) await h.redis.del(...now);
  for (const [k, dump, ttl] of keys) await h.redis.restore(k, ttl > 0 ? ttl : 0, dump);
}

const expectOracle = (events: readonly VerificationEvent[], qs: string) =>
  expectOracleAnswer(h, key, events, qs, 'restored');

const QUERIES = [
  'apiId=api_dict&externalId=bob',
  'apiId=api_dict&externalId=carol',
  'apiId=api_dict&externalId=dave',
  'apiId=api_dict&tag=b',
  'apiId=api_dict&tag=c',
  'apiId=api_dict&tag=d',
  'apiId=api_dict&groupBy=identity',
  'apiId=api_dict&groupBy=tags',
  'apiId=api_dict&groupBy=tag',
];

describe('dictionaries after Redis lost its last writes', () => {
  it('answers externalId and tag filters and groups with the values Redis holds now', async () => {
    // Codes: identity alice 0; tag sets "a" 0.
    const kept = [event('alice', ['a']), event('alice', ['a'])];
    await h.seed(kept);
    const before = await snapshot();

    // Lost with the AOF tail: identity bob (code 1), tag set "b" (code 1).
    const lost = [event('bob', ['b']), event('bob', ['b']), event('bob', ['b'])];
    await h.seed(lost);
    for (const qs of QUERIES) await expectOracle([...kept, ...lost], qs);

    await restore(before);
    // After the restart the lost codes go to other values: carol gets identity code 1, "c" tag
    // set code 1; dave and "d" are new codes after them.
    const after = [event('carol', ['c']), event('dave', ['d']), event('dave', ['d'])];
    await h.seed(after);
    for (const qs of QUERIES) await expectOracle([...kept, ...after], qs);
  });
});
