/**
 * `rebuild [--since] [--yes]`: plans a rebuild, checks that the topics still hold what the store
 * counts, asks for confirmation, records the state and runs it (runner.ts).
 */
import { createInterface } from 'node:readline/promises';
import {
  ACTIVE_REBUILD,
  deleteGeneration,
  globalKeys,
  listApis,
  oldestCountedTime,
  readGeneration,
  readRebuildState,
  readWatermarks,
  transitionRebuild,
} from '@va/store';
import { replayedTopics, type RebuildDeps } from './deps';
import {
  boundaryOf,
  checkCoverage,
  CLOCK_MARGIN_MS,
  describePlan,
  retentionWarnings,
  startWatermarks,
} from './plan';
import { runRebuild } from './runner';
import { inspectTopics, offsetsAt } from './topics';

export interface BeginOptions {
  since: number | null;
  yes: boolean;
}

async function confirm(deps: RebuildDeps): Promise<boolean> {
  if (!process.stdin.isTTY) {
    deps.err('rebuild: not a terminal; pass --yes to start without confirmation');
    return false;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question('start the rebuild? type "yes": ')).trim() === 'yes';
  } finally {
    rl.close();
  }
}

export async function beginRebuild(deps: RebuildDeps, options: BeginOptions): Promise<number> {
  const { config, redis, kafka, out, err } = deps;
  const prefix = config.keyPrefix;
  const existing = await readRebuildState(redis, prefix);
  if (existing && ACTIVE_REBUILD.includes(existing.status)) {
    const age = Math.round((Date.now() - existing.heartbeatAt) / 1000);
    err(
      `rebuild: a rebuild into generation ${existing.target} is ${existing.status} ` +
        `(owner ${existing.owner}, last heartbeat ${age} s ago): see \`rebuild status\`, then ` +
        '`rebuild resume` or `rebuild abort`',
    );
    return 1;
  }
  const now = deps.now();
  const source = await readGeneration(redis, prefix);
  const target = source + 1;
  const topics = replayedTopics(config);
  const info = await inspectTopics(kafka, topics);
  const apis = await listApis(redis, globalKeys(prefix).apis);
  const oldest = await oldestCountedTime(redis, { prefix, generation: source }, apis);
  const boundary = options.since === null ? null : boundaryOf(options.since);
  const coverage = checkCoverage({
    spans: info.spans,
    oldestCounted: oldest,
    boundary: boundary?.ms ?? null,
    now,
  });
  if (!coverage.ok) {
    err(
      ['rebuild refused: the topics no longer hold everything the store counts', ...coverage.reasons].join(
        '\n  ',
      ),
    );
    return 1;
  }
  for (const line of describePlan({
    source,
    target,
    spans: info.spans,
    since: options.since,
    boundary: boundary?.ms ?? null,
    apis: apis.length,
  }))
    out(line);
  for (const line of retentionWarnings(info.retention, config.retention.monthMs)) err(line);
  if (!options.yes && !(await confirm(deps))) {
    err('rebuild: not started');
    return 1;
  }

  let starts: { field: string; wm: number }[] = [];
  if (boundary) {
    // Read before anything is copied: see plan.ts startWatermarks.
    const sourceWms = await readWatermarks(redis, { prefix, generation: source }, info.spans);
    const byTime = await offsetsAt(kafka, topics, boundary.ms - CLOCK_MARGIN_MS);
    starts = startWatermarks(
      info.spans.map((s, n) => ({
        topic: s.topic,
        partition: s.partition,
        byTimestamp: byTime.find((o) => o.topic === s.topic && o.partition === s.partition)?.offset ?? s.high,
        sourceWm: sourceWms[n] ?? null,
      })),
    );
  }
  // g' starts empty (an abort that crashed half-way may have left keys of that number).
  const leftover = await deleteGeneration(redis, prefix, target);
  if (leftover > 0) out(`deleted ${leftover} keys left in generation ${target} by an earlier rebuild`);
  const startedAt = Date.now();
  const began = await transitionRebuild(
    redis,
    prefix,
    [null, 'done', 'aborted'],
    'copying',
    {
      source,
      target,
      since: options.since,
      boundary: boundary?.ms ?? null,
      group: `${config.consumerGroup}.rebuild-g${target}`,
      starts: JSON.stringify(starts),
      startedAt,
      heartbeatAt: startedAt,
      owner: deps.owner,
    },
    true,
  );
  if (!began.ok) {
    err(`rebuild: another rebuild started meanwhile (${began.status ?? 'none'})`);
    return 1;
  }
  const state = await readRebuildState(redis, prefix);
  if (!state) throw new Error('the rebuild state vanished right after it was written');
  return runRebuild(deps, state);
}
