/**
 * How long one readBuckets call blocks Redis when it reads an unsealed hour's cube-f hashes (a
 * `P` item: e.g. groupBy=key&tag=… over the current hour, which no section holds yet), with the
 * P item unbounded (as before PARTS_BUDGET) and bounded (the default), and how many C calls then
 * read the rest.
 *
 *   REDIS_URL=redis://127.0.0.1:6390 npx tsx services/ingest/bench/open-hour-read.ts [--events 20000]
 *
 * The hour is the medium tenant's shape (libs/workload's generator: 10,000 keys, 2,000
 * identities, tags) written through the ingest worker's batch processor into the current hour of
 * an API of its own under the prefix `open-hour-bench`, which it deletes afterwards. Times are
 * Redis's own (SLOWLOG, microseconds on its thread). REDIS_URL must be a private server.
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { loadConfig } from '@va/config';
import { hourOf } from '@va/core';
import { apiKeys, PARTS_BUDGET } from '@va/store';
import { readBucketsOnce } from '@va/store/testing';
import { createGenerator } from '@va/workload';
import { seedEvents } from '../src/testing';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '20000' }, calls: { type: 'string', default: '20' } },
});
const url = process.env.REDIS_URL;
if (!url || /:6379\b/.test(url)) throw new Error('set REDIS_URL to a private Redis (not 6379)');
const prefix = 'open-hour-bench';
const redis = new Redis(url);
const now = Date.now();
const hour = hourOf(now);
const generator = createGenerator({
  seed: 7,
  apis: 1,
  keys: 10_000,
  identities: 2_000,
  startMs: hour * 3_600_000,
  spanMs: Math.max(1, now - hour * 3_600_000),
});
const events = Array.from({ length: Number(values.events) }, () => ({ ...generator.next(), apiId: 'open' }));
async function deletePrefix(): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (found.length > 0) await redis.unlink(...found);
    cursor = next;
  } while (cursor !== '0');
}

await deletePrefix();
await seedEvents(redis, events, { prefix, now, retention: loadConfig({}).retention });

const keys = apiKeys({ prefix, generation: 1 }, 'open');
const parts = await redis.smembers(keys.parts('h', hour));
const fHashes = parts.filter((m) => m === 'f' || m.startsWith('f:'));
let fields = 0;
for (const m of fHashes) fields += await redis.hlen(keys.cube('h', hour, m));
console.log(`${events.length} events in hour ${hour}: ${fHashes.length} f hashes, ${fields} fields`);

await redis.config('SET', 'slowlog-log-slower-than', '0');
for (const budget of [1e12, PARTS_BUDGET]) {
  await redis.slowlog('RESET');
  let left = 0;
  for (let n = 0; n < Number(values.calls); n++) {
    const [, reply] = (await readBucketsOnce(redis, [
      4,
      keys.compactedThrough,
      keys.parts('h', hour),
      keys.sealingParts('h', hour),
      keys.sealSequence,
      'P',
      `${keys.bucketPrefix('h', hour)}:`,
      'f',
      '0',
      String(budget),
    ])) as [unknown, [unknown[], ...unknown[]]];
    left = reply[0].length;
  }
  const micros = ((await redis.slowlog('GET', 1000)) as [number, number, number, string[]][])
    .filter((entry) => /^evalsha$/i.test(entry[3][0]!))
    .map((entry) => entry[2])
    .sort((a, b) => a - b);
  const label = budget === PARTS_BUDGET ? `bounded (${PARTS_BUDGET})` : 'unbounded';
  console.log(
    `${label}: P call p50 ${micros[micros.length >> 1]} µs, max ${micros.at(-1)} µs (${micros.length} calls); ` +
      `hashes left for C calls: ${left}`,
  );
}
await redis.config('SET', 'slowlog-log-slower-than', '5000');
await deletePrefix();
redis.disconnect();
