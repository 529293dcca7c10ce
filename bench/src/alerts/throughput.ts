/**
 * Ingest throughput without and with the rules, alternating A (0 rules), B (the rules), A, B in one run:
 * the live-shaped events (ingest-live.ts: --live-events, times in the last 30 minutes) are produced once,
 * and each run's worker consumes the whole topic as a consumer group of its own into a prefix of its own
 * (the B runs' prefixes hold the rules before the worker starts), measured as the live-shaped phase is
 * (ingest-topic.ts: events/s, the worker's and Redis's CPU, Redis's slow log over 5 ms). Each run's
 * prefix is removed after it, so every run starts from the same Redis.
 */
import type { AlertRule } from '@va/contracts';
import { phase, type RunContext } from '../context';
import { produceLiveShaped } from '../ingest-live';
import { ingestTopic } from '../ingest-topic';
import { deleteTopics, recreateTopics } from '../kafka';
import { log } from '../log';
import { namesFor, type BenchNames } from '../names';
import type { ProduceResult } from '../phases/produce';
import { deletePrefix } from '../redis-keys';
import type { AbLabel, AbRun } from './figures';
import type { PlannedApi } from './plan';
import { crossingsAppended, storeRules } from './setup';

export const AB_ORDER: readonly AbLabel[] = ['A', 'B', 'A', 'B'];

export interface ThroughputResult {
  produce: ProduceResult;
  runs: AbRun[];
  /** Seconds to store the rules before each B run (not measured time). */
  storeRulesSeconds: number[];
}

/** A run's names: its own prefix and consumer group, the shared topics. */
const runNames = (shared: BenchNames, id: string): BenchNames => ({
  ...namesFor(id),
  topic: shared.topic,
  dlqTopic: shared.dlqTopic,
  backfillTopic: shared.backfillTopic,
});

export async function alertThroughput(
  ctx: RunContext,
  base: string,
  rules: readonly AlertRule[],
  apis: readonly PlannedApi[],
): Promise<ThroughputResult> {
  const shared = namesFor(`${base}-live`);
  await recreateTopics(ctx.kafka, shared);
  try {
    const produce = await produceLiveShaped(ctx, shared);
    const runs: AbRun[] = [];
    const storeRulesSeconds: number[] = [];
    for (const [n, label] of AB_ORDER.entries()) {
      const names = runNames(shared, `${base}-${label.toLowerCase()}${n + 1}`);
      await deletePrefix(ctx.redis, names.prefix);
      try {
        if (label === 'B') storeRulesSeconds.push(await storeRules(ctx.redis, names.prefix, rules));
        const ingest = await phase(ctx, `ingest-${label}${n + 1}`, () => ingestTopic(ctx, names));
        const crossings = await crossingsAppended(ctx.redis, names.prefix, apis);
        log(`${label}${n + 1}: ${Math.round(ingest.eventsPerSecond)} events/s, ${crossings} crossings`);
        runs.push({ label, rules: label === 'B' ? rules.length : 0, ingest, crossings });
      } finally {
        await deletePrefix(ctx.redis, names.prefix);
      }
    }
    return { produce, runs, storeRulesSeconds };
  } finally {
    await deleteTopics(ctx.kafka, shared);
  }
}
