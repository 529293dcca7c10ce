/** `rebuild status`, `rebuild abort`, `rebuild resume`: the rebuild seen and steered from any shell. */
import {
  ACTIVE_REBUILD,
  deleteGeneration,
  readGeneration,
  readRebuildState,
  readWatermarks,
  transitionRebuild,
  updateRebuild,
  type RebuildState,
} from '@va/store';
import { topicOffsets } from '../ops/kafka';
import { replayedTopics, sleep, STALE_MS, type RebuildDeps } from './deps';
import { iso } from './plan';
import { formatProgress, progressRows } from './progress';
import { runRebuild } from './runner';

/** Alive = heartbeat fresh and not stopped on purpose. */
const alive = (s: RebuildState): boolean => s.stoppedAt === null && Date.now() - s.heartbeatAt < STALE_MS;

export async function rebuildStatus(deps: RebuildDeps, json: boolean): Promise<number> {
  const { redis, config, kafka, out } = deps;
  const prefix = config.keyPrefix;
  const [state, generation] = await Promise.all([
    readRebuildState(redis, prefix),
    readGeneration(redis, prefix),
  ]);
  let progress = null;
  if (state && ['copying', 'replaying', 'compacting', 'switching'].includes(state.status)) {
    const spans = await topicOffsets(kafka, replayedTopics(config));
    const [target, source] = await Promise.all([
      readWatermarks(redis, { prefix, generation: state.target }, spans),
      readWatermarks(redis, { prefix, generation: state.source }, spans),
    ]);
    progress = progressRows(spans, state.starts, target, source);
  }
  if (json) {
    const running = state !== null && ACTIVE_REBUILD.includes(state.status) && alive(state);
    out(JSON.stringify({ generation, rebuild: state && { ...state, running }, progress }));
    return 0;
  }
  if (!state) {
    out(`no rebuild recorded; current generation ${generation}`);
    return 0;
  }
  const lines = [
    `current generation ${generation}; rebuild ${state.source} -> ${state.target}: ${state.status}`,
    `  started ${iso(state.startedAt)} by ${state.owner}` +
      (ACTIVE_REBUILD.includes(state.status)
        ? alive(state)
          ? `, running (heartbeat ${Math.round((Date.now() - state.heartbeatAt) / 1000)} s ago)`
          : ', NOT running: `rebuild resume` continues it, `rebuild abort` drops it'
        : ''),
    state.boundary === null
      ? '  rebuilds every period from the earliest retained records'
      : `  rebuilds from ${iso(state.boundary)} on (--since ${iso(state.since ?? state.boundary)}); older periods carried over`,
  ];
  if (state.switchedAt !== null) lines.push(`  switched ${iso(state.switchedAt)}`);
  if (state.finishedAt !== null) lines.push(`  finished ${iso(state.finishedAt)}`);
  if (progress) lines.push(...formatProgress(progress).map((l) => `  ${l}`));
  for (const l of lines) out(l);
  return 0;
}

export async function abortRebuild(deps: RebuildDeps): Promise<number> {
  const { redis, config, kafka, out, err } = deps;
  const prefix = config.keyPrefix;
  const state = await readRebuildState(redis, prefix);
  if (!state || !ACTIVE_REBUILD.includes(state.status)) {
    err(`rebuild abort: no rebuild to abort (${state ? state.status : 'none recorded'})`);
    return 1;
  }
  const moved = await transitionRebuild(redis, prefix, ['copying', 'replaying', 'compacting'], 'aborted', {
    abortedAt: Date.now(),
  });
  if (!moved.ok) {
    err(
      `rebuild abort: too late, the rebuild ${moved.status === 'switched' ? 'switched already' : `is ${moved.status}`}: ` +
        `generation ${state.target} is current (\`rebuild resume\` finishes deleting the old one if it stopped)`,
    );
    return 1;
  }
  // The running process notices within a heartbeat; g' may be deleted once it stopped writing.
  const deadline = Date.now() + 60_000;
  for (let s = state; alive(s) && Date.now() < deadline;) {
    out(`waiting for the rebuild process ${s.owner} to stop...`);
    await sleep(1_000);
    s = (await readRebuildState(redis, prefix)) ?? s;
  }
  const deleted = await deleteGeneration(redis, prefix, state.target);
  const admin = kafka.admin();
  await admin
    .connect()
    .then(() => admin.deleteGroups([state.group]))
    .catch(() => undefined)
    .finally(() => admin.disconnect());
  out(
    `aborted: generation ${state.source} stays current; deleted generation ${state.target} (${deleted} keys)`,
  );
  return 0;
}

export async function resumeRebuild(deps: RebuildDeps, force: boolean): Promise<number> {
  const { redis, config, out, err } = deps;
  const prefix = config.keyPrefix;
  const state = await readRebuildState(redis, prefix);
  if (!state || !ACTIVE_REBUILD.includes(state.status)) {
    err(`rebuild resume: nothing to resume (${state ? state.status : 'no rebuild recorded'})`);
    return 1;
  }
  if (!force && alive(state)) {
    err(
      `rebuild resume: the rebuild seems to run (owner ${state.owner}, heartbeat ` +
        `${Math.round((Date.now() - state.heartbeatAt) / 1000)} s ago); wait ${STALE_MS / 1000} s after it died, ` +
        'or pass --force if you are sure it is gone',
    );
    return 1;
  }
  await updateRebuild(redis, prefix, { owner: deps.owner, heartbeatAt: Date.now(), stoppedAt: null });
  out(`resuming the rebuild ${state.source} -> ${state.target} (${state.status})`);
  return runRebuild(deps, { ...state, owner: deps.owner, stoppedAt: null });
}
