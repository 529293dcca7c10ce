/**
 * Measures what alert detection adds (docs/alerts.md "Cost"): Redis memory per counter member, per recorded
 * crossing and per stream entry (MEMORY USAGE), and the time of one applyApiBatch call and of the core's
 * alertIncrements for an API with 10,000 "each identity" rules, shared by few counters or spread over many.
 *
 *   REDIS_URL=redis://127.0.0.1:<port> npx tsx services/ingest/bench/alerts-measure.ts
 *
 * Use a Redis of your own (it writes under the prefix `alerts-measure` and deletes it at the end).
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { OUTCOMES, type AlertRule } from '@va/contracts';
import { alertCounterId, DAY_MS, hourOf } from '@va/core';
import {
  alertKeys,
  apiKeys,
  applyApiBatches,
  createAlertRule,
  defineCommands,
  identityValue,
  tagSetValue,
  TupleCounter,
  type AlertIncrements,
  type DictName,
  writeAlertLevels,
} from '@va/store';
import { alertIncrements, compileAlertRules } from '../src/core/alert-increments';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:16399');
defineCommands(redis);
const prefix = 'alerts-measure';
const space = { prefix, generation: 1 };
const retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 1830 * DAY_MS };
const now = Date.now();
const noCounts = { buckets: [], events: 0, required: { k: 0, i: 0, s: 0 }, keepUntil: 0 };

const rules = (apiId: string, n: number, counters: number): AlertRule[] =>
  Array.from({ length: n }, (_, r) => ({
    ruleId: `rule_${r.toString(16).padStart(24, '0')}`,
    apiId,
    scope: { kind: 'eachIdentity' },
    // `counters` distinct tag filters: rules with the same one share a counter.
    ...(counters > 1 && { tags: [`t${r % counters}`] }),
    period: 'month',
    levels: [1000 + (r % 7), 5000, 10_000],
    createdAt: r,
  }));

/** A batch of `events` events of `members` identities, each with every tag t0..t<counters-1>. */
function batch(members: number, events: number, counters: number) {
  const dicts: Record<DictName, string[]> = { k: ['key_0'], i: [], s: [] };
  for (let m = 0; m < members; m++) dicts.i.push(identityValue(`id_${m}`, `user_${m}`));
  dicts.s.push(tagSetValue(Array.from({ length: Math.min(counters, 20) }, (_, t) => `t${t}`)));
  const counter = new TupleCounter();
  for (let e = 0; e < events; e++) counter.add(hourOf(now), 0, e % members, 0, OUTCOMES.indexOf('VALID'));
  return { counter, valueOf: (d: DictName, c: number) => dicts[d][c]! };
}

async function callMs(apiId: string, alerts: AlertIncrements, off: number | null): Promise<number> {
  const cas = { offsetField: 't/0', expectedOff: off, newOff: (off ?? -1) + 1, expectedCmp: null };
  await redis.slowlog('RESET');
  const [result] = await applyApiBatches(redis, space, [{ apiId, increments: noCounts, cas, alerts }]);
  if (result?.status !== 'ok') throw new Error(JSON.stringify(result));
  // The script's own time in Redis (the slow log logs every command: slowlog-log-slower-than 0).
  const log = (await redis.slowlog('GET', 10)) as [number, number, number, string[]][];
  const call = log.find((entry) => String(entry[3][0]).toLowerCase().startsWith('eval'));
  return (call?.[2] ?? NaN) / 1000;
}

async function scenario(name: string, nRules: number, counters: number, members: number, events: number) {
  const apiId = `api_${name}`;
  const list = rules(apiId, nRules, counters);
  let version = 0;
  for (const r of list) version = await createAlertRule(redis, prefix, r);
  const compileStart = performance.now();
  const compiled = compileAlertRules(version, list);
  const compileMs = performance.now() - compileStart;
  const { counter, valueOf } = batch(members, events, Math.min(counters, 20));
  const incStart = performance.now();
  const alerts = alertIncrements(counter, compiled, valueOf, { now, retention });
  const incMs = performance.now() - incStart;
  const tableStart = performance.now();
  await writeAlertLevels(redis, prefix, apiId, version, compiled.levelTable);
  const tableMs = performance.now() - tableStart;
  const ms: number[] = [];
  for (let b = 0; b < 5; b++) ms.push(await callMs(apiId, alerts, b === 0 ? null : b - 1));
  const increments = alerts.counters.reduce((n, c) => n + c.members.size, 0);
  const table = (await redis.memory(
    'USAGE',
    alertKeys(prefix, apiId).levels(version),
    'SAMPLES',
    0,
  )) as number;
  console.log(
    `${name}: ${nRules} rules in ${alerts.counters.length} counters, ${members} members, ${events} events: ` +
      `compile ${compileMs.toFixed(1)} ms, alertIncrements ${incMs.toFixed(1)} ms, ${increments} increments, ` +
      `level table written in ${tableMs.toFixed(1)} ms, ${(table / nRules).toFixed(0)} B per rule; ` +
      `applyApiBatch in Redis, ms: ${ms.map((m) => m.toFixed(1)).join(' ')}`,
  );
}

async function memory() {
  const apiId = 'api_mem';
  for (const members of [100, 2_000]) {
    const key = apiKeys(space, apiId).alertCounter(
      alertCounterId({ scope: { kind: 'eachIdentity' }, period: 'month' }),
      members,
    );
    const pipeline = redis.pipeline();
    for (let m = 0; m < members; m++) pipeline.hincrby(key, `user_${m}`, 1234);
    await pipeline.exec();
    const bytes = (await redis.memory('USAGE', key, 'SAMPLES', 0)) as number;
    console.log(`counter hash, ${members} members: ${bytes} B, ${(bytes / members).toFixed(1)} B per member`);
  }
  const recorded = alertKeys(prefix, apiId).recorded('month', 0);
  const stream = alertKeys(prefix, apiId).crossings;
  const n = 2_000;
  for (let m = 0; m < n; m++) {
    await redis.sadd(recorded, `rule_${'0'.repeat(23)}1|1000|user_${m}`);
    await redis.xadd(
      stream,
      '*',
      'ruleId',
      `rule_${'0'.repeat(23)}1`,
      'member',
      `user_${m}`,
      'period',
      'month',
      'periodStart',
      '1833148800000',
      'level',
      '1000',
      'count',
      '1003',
      'detectedAt',
      String(now),
    );
  }
  const setBytes = (await redis.memory('USAGE', recorded, 'SAMPLES', 0)) as number;
  const streamBytes = (await redis.memory('USAGE', stream, 'SAMPLES', 0)) as number;
  console.log(`recorded set, ${n} crossings: ${(setBytes / n).toFixed(1)} B per crossing`);
  console.log(`crossings stream, ${n} entries: ${(streamBytes / n).toFixed(1)} B per entry`);
  const rule = rules('api_mem', 1, 1)[0]!;
  await createAlertRule(redis, prefix, rule);
  console.log(`one rule's JSON in the rules hash: ${JSON.stringify(rule).length} B`);
}

try {
  await redis.config('SET', 'slowlog-log-slower-than', '0');
  await memory();
  await scenario('shared', 10_000, 1, 200, 10_000);
  await scenario('shared2k', 10_000, 1, 2_000, 10_000);
  await scenario('spread20', 10_000, 20, 200, 10_000);
  await scenario('spread20x2k', 10_000, 20, 2_000, 10_000);
} finally {
  const keys = await redis.keys(`${prefix}:*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  redis.disconnect();
}
