/**
 * Runs (or resumes) a rebuild from the phase its state records (docs/rebuild.md):
 *
 *   copying     per API: dictionaries, and with --since the buckets before the boundary, into g'
 *   replaying   the rebuild consumer (the ingest worker with generation g' and its own group)
 *               replays both topics into g' until every partition of g' holds what g holds
 *   compacting  switch once g' >= g (retried while the live workers move g ahead); the status keeps
 *               its name, g' is compacted after the switch
 *   switching   every API is retired in g (one script per API's slot), then <p>:gen = g'
 *               (libs/store generation-switch.ts; a resumed run finishes it)
 *   switched    stop the consumer, compact g' up to the closed bound, delete the consumer's group and
 *               generation g
 *
 * Every phase is idempotent and the consumer's progress is the wm of g' in Redis, so a SIGKILL
 * anywhere is repaired by `rebuild resume`. A heartbeat in the state says the process is alive;
 * `rebuild abort` (another shell) moves the status to 'aborted', which the heartbeat notices.
 */
import type { Admin } from 'kafkajs';
import { closedBoundAt } from '@va/core';
import {
  compactApi,
  copyApiGeneration,
  deleteGeneration,
  globalKeys,
  listApis,
  readRebuildState,
  readWatermarks,
  switchGeneration,
  transitionRebuild,
  updateRebuild,
  initWatermarks,
  type KeySpace,
  type RebuildState,
} from '@va/store';
import { startRebuildConsumer, type RebuildConsumer } from './consumer';
import { HEARTBEAT_MS, replayedTopics, sleep, type RebuildDeps } from './deps';
import { boundaryOf, iso } from './plan';
import { caughtUp, doneOf, progressRows, type PartitionProgress } from './progress';
import { ProgressView } from './progress-view';
import { PhaseClock, timingsLine } from './timings';

/** How long the switch keeps trying while the live workers stay ahead of g'. */
const SWITCH_TIMEOUT_MS = 10 * 60_000;
/** After the switch, a live worker may still commit a batch prepared for the old generation. */
const SETTLE_MS = 2_000;
/** How often the replay's progress is read. */
const REPLAY_POLL_MS = 250;

export const EXIT_ABORTED = 4;
export const EXIT_INTERRUPTED = 130;

class Stopped extends Error {}

export async function runRebuild(deps: RebuildDeps, state: RebuildState): Promise<number> {
  const { config, redis, kafka, out } = deps;
  const prefix = config.keyPrefix;
  const source: KeySpace = { prefix, generation: state.source };
  const target: KeySpace = { prefix, generation: state.target };
  const topics = replayedTopics(config);
  let status = state.status;
  let aborted = false;
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const check = () => {
    if (aborted || interrupted) throw new Stopped();
  };
  const heartbeat = async () => {
    await updateRebuild(redis, prefix, { heartbeatAt: Date.now(), owner: deps.owner });
    if ((await readRebuildState(redis, prefix))?.status === 'aborted') aborted = true;
  };
  const beat = setInterval(() => void heartbeat().catch(() => undefined), HEARTBEAT_MS);
  const admin = kafka.admin();
  const view = new ProgressView(out, { json: deps.json === true });
  let consumer: RebuildConsumer | undefined;
  const clock = new PhaseClock();
  let records = 0;
  await admin.connect();
  try {
    await heartbeat();
    if (status === 'copying') {
      clock.begin('copy');
      await copy(deps, state, source, target, check);
      if (!(await transitionRebuild(redis, prefix, ['copying'], 'replaying')).ok) throw new Stopped();
      status = 'replaying';
    }
    // g' is compacted only after the switch: the replay writes history into hour buckets, as a fresh
    // worker does. Compacted first, every replayed hour would also be written into its day and month,
    // the current month as hash increments: 25-30% more replay time on the medium tenant
    // (docs/rebuild.md "Replay at the worker's speed"). Until the compaction, queries read those hours
    // from their hour buckets, exactly (a rollup holds exactly its compacted hours: docs/rollups.md).
    if (status === 'replaying' || status === 'compacting' || status === 'switching') {
      if (status === 'replaying') clock.begin('replay');
      consumer = await startConsumer(state, target);
      if (status === 'replaying') {
        out(`replaying ${topics.join(' and ')} into generation ${target.generation}`);
        records = await replay(deps, state, admin, consumer, view, check);
        if (!(await transitionRebuild(redis, prefix, ['replaying'], 'compacting')).ok) throw new Stopped();
        status = 'compacting';
      }
      view.stop();
      clock.begin('catchUp');
      await switchOver(deps, state, admin, consumer, view, check, () => aborted, clock);
      status = 'switched';
      clock.begin('cleanup');
      await consumer.close();
      report(deps, consumer);
      consumer = undefined;
      // What the compactor would do too (concurrently is safe): the command ends with g' compacted.
      await compact(deps, target, check, 'after the switch');
    }
    clock.begin('cleanup');
    await finish(deps, state, admin);
    out(timingsLine(clock.timings(records), deps.json === true ? 'json' : 'text'));
    return 0;
  } catch (err) {
    if (!(err instanceof Stopped)) throw err;
    view.stop();
    if (consumer) await consumer.close();
    consumer = undefined;
    // Only now may `rebuild abort` delete g': nothing of this process writes to it any more.
    await updateRebuild(redis, prefix, { stoppedAt: Date.now() });
    if (aborted || (await readRebuildState(redis, prefix))?.status === 'aborted') {
      deps.err(`rebuild aborted (\`rebuild abort\`): generation ${source.generation} stays current`);
      return EXIT_ABORTED;
    }
    deps.err(`rebuild stopped; \`rebuild resume\` continues into generation ${target.generation}`);
    return EXIT_INTERRUPTED;
  } finally {
    clearInterval(beat);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    view.stop();
    if (consumer) await consumer.close().catch(() => undefined);
    await admin.disconnect();
  }
}

async function copy(
  deps: RebuildDeps,
  state: RebuildState,
  source: KeySpace,
  target: KeySpace,
  check: () => void,
): Promise<void> {
  const { redis, config, out } = deps;
  // Before any copy: every record a copy may miss lies after these starts (plan.ts startWatermarks).
  await initWatermarks(redis, target, state.starts);
  const boundary = state.boundary === null ? null : boundaryOf(state.boundary);
  const apis = await listApis(redis, globalKeys(config.keyPrefix).apis);
  let buckets = 0;
  for (const apiId of apis) {
    check();
    const result = await copyApiGeneration(redis, source, target, apiId, boundary);
    if (result.status === 'copied') buckets += result.buckets;
  }
  out(
    `copied the dictionaries of ${apis.length} APIs into generation ${target.generation}` +
      (boundary ? ` and carried ${buckets} buckets from before ${iso(boundary.ms)} over` : ''),
  );
}

/** The replay process; with --since it loads the carries itself (replay-worker.ts). */
const startConsumer = (state: RebuildState, target: KeySpace): Promise<RebuildConsumer> =>
  startRebuildConsumer({ group: state.group, generation: target.generation, boundary: state.boundary });

async function readProgress(
  deps: RebuildDeps,
  state: RebuildState,
  admin: Admin,
): Promise<PartitionProgress[]> {
  const spans = [];
  for (const topic of replayedTopics(deps.config)) {
    for (const p of await admin.fetchTopicOffsets(topic)) {
      spans.push({ topic, partition: p.partition, low: Number(p.low), high: Number(p.high) });
    }
  }
  spans.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  const prefix = deps.config.keyPrefix;
  const [target, source] = await Promise.all([
    readWatermarks(deps.redis, { prefix, generation: state.target }, spans),
    readWatermarks(deps.redis, { prefix, generation: state.source }, spans),
  ]);
  return progressRows(spans, state.starts, target, source);
}

async function replay(
  deps: RebuildDeps,
  state: RebuildState,
  admin: Admin,
  consumer: RebuildConsumer,
  view: ProgressView,
  check: () => void,
): Promise<number> {
  for (;;) {
    check();
    const fatal = consumer.fatal();
    if (fatal) throw fatal;
    const rows = await readProgress(deps, state, admin);
    view.update('replaying', rows);
    if (caughtUp(rows)) return rows.reduce((sum, r) => sum + doneOf(r), 0);
    // Often enough that the replay's end is seen promptly (the poll is two small reads).
    await sleep(REPLAY_POLL_MS);
  }
}

async function compact(deps: RebuildDeps, target: KeySpace, check: () => void, when: string): Promise<void> {
  const { config, redis } = deps;
  const now = deps.now();
  const closedBound = closedBoundAt(now, config.compactionGraceMs);
  const apis = await listApis(redis, globalKeys(config.keyPrefix).apis);
  let hours = 0;
  for (const apiId of apis) {
    check();
    hours += (await compactApi(redis, target, apiId, { closedBound, retention: config.retention, now }))
      .hoursCompacted;
  }
  deps.out(
    `${when}: compacted ${hours} closed hours of ${apis.length} APIs in generation ${target.generation}`,
  );
}

async function switchOver(
  deps: RebuildDeps,
  state: RebuildState,
  admin: Admin,
  consumer: RebuildConsumer,
  view: ProgressView,
  check: () => void,
  wasAborted: () => boolean,
  clock: PhaseClock,
): Promise<void> {
  const { redis, config, out } = deps;
  const deadline = Date.now() + SWITCH_TIMEOUT_MS;
  let reported = Date.now();
  for (;;) {
    check();
    const fatal = consumer.fatal();
    if (fatal) throw fatal;
    clock.begin('switch');
    const result = await switchGeneration(redis, config.keyPrefix, state.source, state.target, Date.now());
    if (result.status !== 'switched') clock.begin('catchUp');
    if (result.status === 'switched') {
      out(`switched: queries read generation ${state.target} now`);
      return;
    }
    if (result.status === 'not-ready') {
      if (result.rebuildStatus === 'aborted' || wasAborted()) throw new Stopped();
      throw new Error(`the rebuild is ${result.rebuildStatus}, not ready to switch`);
    }
    if (result.status === 'not-current') {
      throw new Error(
        `the current generation is ${result.current}, not ${state.source}: someone else switched; ` +
          '`rebuild abort` cleans this rebuild up',
      );
    }
    if (Date.now() - reported > 10_000) {
      reported = Date.now();
      const lagging = result.partitions.map((p) => `${p.field} ${p.has ?? 'none'}/${p.needed}`).join(', ');
      out(`switch waits for ${result.count} partitions to reach the live generation: ${lagging}`);
      view.update('catching up', await readProgress(deps, state, admin));
    }
    if (Date.now() > deadline) {
      throw new Error(
        `generation ${state.target} did not catch up with the live workers in ${SWITCH_TIMEOUT_MS / 60_000} min; ` +
          '`rebuild resume` tries again',
      );
    }
    await sleep(50);
  }
}

function report(deps: RebuildDeps, consumer: RebuildConsumer): void {
  const refused = [...consumer.refused];
  if (refused.length === 0) return;
  const total = refused.reduce((s, [, n]) => s + n, 0);
  deps.out(
    `left out ${total} records the ingest worker refused (in the DLQ since they were new): ` +
      refused.map(([reason, n]) => `${reason}=${n}`).join(' '),
  );
}

async function finish(deps: RebuildDeps, state: RebuildState, admin: Admin): Promise<void> {
  const { redis, config, out } = deps;
  await admin.deleteGroups([state.group]).catch(() => undefined);
  await sleep(SETTLE_MS);
  const deleted = await deleteGeneration(redis, config.keyPrefix, state.source);
  await transitionRebuild(redis, config.keyPrefix, ['switched'], 'done', { finishedAt: Date.now() });
  out(`done: generation ${state.target} is current; deleted generation ${state.source} (${deleted} keys)`);
}
