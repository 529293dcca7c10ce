/**
 * The Lua call durations of a batch's alert increments under the per-call bound (docs/alerts.md "Staged beyond
 * the bound"; the 5 ms rule of docs/store-v2.md "Applies staged in chunks"): one API with the bench's rules for
 * the medium tenant (bench/src/alerts/plan.ts: 10,000 rules over 101 APIs, the first API's 100 here, 6 counters),
 * and catch-up-shaped batches of ~9,700 alert member increments (1,617 identities, each with valid and refused
 * events), applied through applyApiBatches with INGEST_MAX_WRITES_PER_CALL's default (1,000) as the ingest
 * worker does. Every script call is timed by Redis's slow log (slowlog-log-slower-than 0): per script,
 * the calls, p50, p99 and the slowest (batch 0 loads the scripts and is not timed).
 *
 *   redis-server --port 16411 --save '' --appendonly no &
 *   REDIS_URL=redis://127.0.0.1:16411 npx tsx services/ingest/bench/alerts-call-bound.ts
 *
 * Use a Redis of your own (it writes under the prefix `alerts-call-bound` and deletes it at the end).
 */
import { Redis } from 'ioredis';
import { OUTCOMES, type AlertRule, type Outcome } from '@va/contracts';
import { DAY_MS, hourOf } from '@va/core';
import {
  applyApiBatches,
  createAlertRule,
  defineCommands,
  identityValue,
  scriptNamesBySha,
  tagSetValue,
  TupleCounter,
  writeAlertLevels,
  type DictName,
} from '@va/store';
import { alertIncrements, compileAlertRules } from '../src/core/alert-increments';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:16411');
defineCommands(redis);
const prefix = 'alerts-call-bound';
const space = { prefix, generation: 1 };
const retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 1830 * DAY_MS };
const now = Date.now();
const noCounts = { buckets: [], events: 0, required: { k: 0, i: 0, s: 0 }, keepUntil: 0 };
const MAX_WRITES = Number(process.env.MAX_WRITES ?? 1_000);
const MEMBERS = 1_617;
const BATCHES = Number(process.env.BATCHES ?? 21);

/**
 * The rules bench/src/alerts/plan.ts gives the first API of 101 with 10,000 rules, the medium tenant (rule ranks
 * k = 0..99; not imported: another package): what it counts is k mod 6 (month for 0-2, day for 3-5; every
 * outcome, VALID, the refusals), its levels L, 10 L, 100 L with L = 500 (k div 6 + 1), 50 (k div 6 + 1) for
 * the refusals.
 */
function planRules(apiId: string): AlertRule[] {
  const filters: (Outcome[] | undefined)[] = [undefined, ['VALID'], ['RATE_LIMITED', 'USAGE_EXCEEDED']];
  return Array.from({ length: 100 }, (_, k) => {
    const kind = k % 6;
    const outcomes = filters[kind % 3];
    const step = (Math.floor(k / 6) + 1) * (kind % 3 === 2 ? 50 : 500);
    return {
      ruleId: `rule_${k.toString(16).padStart(24, '0')}`,
      apiId,
      scope: { kind: 'eachIdentity' as const },
      ...(outcomes && { outcomes }),
      period: kind < 3 ? ('month' as const) : ('day' as const),
      levels: [step, step * 10, step * 100],
      createdAt: now,
    };
  });
}

/**
 * A batch: every identity with 1 + 3 ((b + m) mod 10) valid and 1 + m mod 3 refused events this hour (counts that
 * cross a few levels over the batches, as the bench's run does: crossings are rare next to increments).
 */
function batch(b: number) {
  const dicts: Record<DictName, string[]> = { k: ['key_0'], i: [], s: [tagSetValue([])] };
  for (let m = 0; m < MEMBERS; m++) dicts.i.push(identityValue(`id_${m}`, `user ${m}`));
  const counter = new TupleCounter();
  for (let m = 0; m < MEMBERS; m++) {
    counter.add(hourOf(now), 0, m, 0, OUTCOMES.indexOf('VALID'), 1 + ((b + m) % 10) * 3);
    counter.add(hourOf(now), 0, m, 0, OUTCOMES.indexOf('RATE_LIMITED'), 1 + (m % 3));
  }
  return { counter, valueOf: (d: DictName, c: number) => dicts[d][c]! };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

try {
  await redis.config('SET', 'slowlog-log-slower-than', '0');
  await redis.config('SET', 'slowlog-max-len', '100000');
  const apiId = 'api_0';
  const rules = planRules(apiId);
  let version = 0;
  for (const r of rules) version = await createAlertRule(redis, prefix, r);
  const compiled = compileAlertRules(version, rules);
  await writeAlertLevels(redis, prefix, apiId, version, compiled.levelTable);
  const names = scriptNamesBySha();
  const durations = new Map<string, number[]>();
  let increments = 0;
  for (let b = 0; b < BATCHES; b++) {
    const { counter, valueOf } = batch(b);
    const alerts = alertIncrements(counter, compiled, valueOf, { now, retention });
    increments += alerts.counters.reduce((n, c) => n + c.members.size, 0);
    const cas = { offsetField: 't/0', expectedOff: b === 0 ? null : b - 1, newOff: b, expectedCmp: null };
    await redis.slowlog('RESET');
    const [result] = await applyApiBatches(redis, space, [{ apiId, increments: noCounts, cas, alerts }], {
      maxWritesPerCall: MAX_WRITES,
    });
    if (result?.status !== 'ok') throw new Error(JSON.stringify(result));
    for (const [, , usec, args] of (await redis.slowlog('GET', -1)) as [number, number, number, string[]][]) {
      // Batch 0 loads the scripts (EVAL, its text truncated in the log): not timed.
      if (b === 0 || String(args[0]).toLowerCase() !== 'evalsha') continue;
      const name = names.get(String(args[1])) ?? String(args[1]);
      durations.set(name, [...(durations.get(name) ?? []), usec / 1000]);
    }
  }
  const crossings = await redis.xlen(`${prefix}:{${apiId}}:alerts:crossings`);
  console.log(
    `${rules.length} rules, ${compiled.levelTable.size} levels; ${BATCHES} batches, ${increments / BATCHES} alert ` +
      `increments each; max ${MAX_WRITES} writes per call; ${crossings} crossings`,
  );
  for (const [name, list] of durations) {
    const sorted = [...list].sort((a, b) => a - b);
    const f = (ms: number) => ms.toFixed(2);
    console.log(
      `${name}: ${list.length} calls, p50 ${f(pct(sorted, 0.5))} ms, p99 ${f(pct(sorted, 0.99))} ms, ` +
        `max ${f(sorted.at(-1)!)} ms`,
    );
  }
} finally {
  const keys = await redis.keys(`${prefix}:*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  redis.disconnect();
}
