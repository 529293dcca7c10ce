// `rebuild` end to end with a real Kafka, Redis and ingest worker: counters of some APIs are
// deleted or lowered on purpose, then rebuilt from the topics while live events keep flowing and
// queries (the real query service) keep answering. The rebuild process is SIGKILLed half-way and
// resumed. Afterwards every cube equals the counts computed from the events; during the rebuild no
// query total ever went down or above the events produced. Then a second rebuild is aborted.
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { loadConfig } from '@va/config';
import {
  generationRoot,
  readGeneration,
  readRebuildState,
  readWatermarks,
  type KeySpace,
  type RedisClient,
} from '@va/store';
import {
  createTopics,
  deleteTopics,
  testEnv,
  type TestEnv,
  killAllChildren,
  startService,
  waitFor,
  FAST_GROUP,
} from '@va/testkit/support';
import { topicEnds, eventMessages, produceMessages, createGenerator } from '@va/testkit';
import {
  storeDiff,
  clearOfHorizon,
  caughtUp,
  keysMatching,
  connectTarget,
  deletePrefix,
  dumpApiCounts,
} from '@va/store/testing';
import { topicOffsets } from '../ops/kafka';
import { STALE_MS } from '../rebuild/deps';
import { runCli, startCli } from '../testing/cli-process';
import { TotalsWatch, totalsProbe } from '../testing/totals';

const LIVE_EVENTS = 8_000;
const LATE_EVENTS = 400;
const BACKFILL_EVENTS = 2_000;
const LIVE_RATE = 100;
const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let t: TestEnv;
let env: Record<string, string>;
let redis: RedisClient;
let kafka: Kafka;
let producer: ReturnType<Kafka['producer']>;
const events: VerificationEvent[] = [];
const apis = new Map<string, string>();

beforeAll(async () => {
  t = await testEnv('cli rebuild');
  await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 4);
  env = {
    ...t.env,
    ...FAST_GROUP,
  };
  redis = connectTarget(t.redis);
  kafka = new Kafka({ clientId: 'rebuild-test', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
});
afterAll(async () => {
  killAllChildren();
  await producer.disconnect();
  redis.disconnect();
  await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
  await deletePrefix(t.redis, t.keyPrefix);
});

const space = (generation: number): KeySpace => ({ prefix: t.keyPrefix, generation });

/** Live events at LIVE_RATE until stopped; each is listed before it is sent. */
function liveTraffic(seed: number) {
  const gen = createGenerator({
    seed,
    apis: 6,
    keys: 600,
    identities: 100,
    startMs: 0,
    spanMs: 0,
    clock: () => Date.now(),
    jitterMs: 500,
  });
  let flowing = true;
  const done = (async () => {
    while (flowing) {
      const chunk = Array.from({ length: LIVE_RATE / 10 }, () => gen.next());
      events.push(...chunk);
      await produceMessages(producer, eventMessages(chunk), { topic: t.topic });
      await sleep(100);
    }
  })();
  return async () => {
    flowing = false;
    await done;
  };
}

async function settled(generation: number): Promise<void> {
  const ends = await topicEnds(kafka, [t.topic, t.backfillTopic]);
  await waitFor(() => caughtUp(redis, space(generation), ends), { timeoutMs: 120_000, message: 'caught up' });
}

/** Sum over partitions of (wm + 1) in a generation: offsets applied. */
async function applied(generation: number): Promise<number> {
  const partitions = await topicOffsets(kafka, [t.topic, t.backfillTopic]);
  return (await readWatermarks(redis, space(generation), partitions)).reduce<number>(
    (s, wm) => s + (wm === null ? 0 : wm + 1),
    0,
  );
}

/** Queries every API's total over and over until stopped. */
function watchTotals(probe: Awaited<ReturnType<typeof totalsProbe>>) {
  const watch = new TotalsWatch();
  let on = true;
  const done = (async () => {
    while (on) {
      const totals = await probe.totals();
      watch.check(totals, events);
      await sleep(100);
    }
  })();
  return async () => {
    on = false;
    await done;
    return watch;
  };
}

describe('rebuild', () => {
  it('recounts damaged counters exactly, survives a SIGKILL, and never shows a total going down', async () => {
    const hourMs = loadConfig(env).retention.hourMs;
    const now = Date.now();
    const worker = startService('ingest', env);
    await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);

    // History: 3 days of live events, some late ones from 40-55 days ago, a backfill over 60 days.
    const opts = { apis: 6, keys: 600, identities: 100 };
    const liveGen = createGenerator({ seed: 31, ...opts, startMs: now - 3 * DAY, spanMs: 3 * DAY - 60_000 });
    const lateGen = createGenerator({ seed: 32, ...opts, startMs: now - 55 * DAY, spanMs: 15 * DAY });
    const oldGen = createGenerator({
      seed: 33,
      ...opts,
      startMs: now - 60 * DAY,
      spanMs: 60 * DAY - 3_600_000,
    });
    const live = [
      ...Array.from({ length: LIVE_EVENTS }, () => liveGen.next()),
      ...Array.from({ length: LATE_EVENTS }, () => lateGen.next()),
    ];
    const backfill = Array.from({ length: BACKFILL_EVENTS }, () =>
      clearOfHorizon(oldGen.next(), now, hourMs),
    );
    events.push(...live, ...backfill);
    for (const e of events) apis.set(e.apiId, e.workspaceId);
    // Small chunks: small record batches, so that a slowed-down rebuild takes many batches.
    await Promise.all([
      produceMessages(producer, eventMessages(live), { topic: t.topic, chunk: 25 }),
      produceMessages(producer, eventMessages(backfill), { topic: t.backfillTopic, chunk: 25 }),
    ]);
    await settled(1);
    expect(await storeDiff(redis, space(1), events, { now, hourRetentionMs: hourMs })).toEqual([]);

    // Damage: every counter of one API deleted, one counter of another lowered.
    const [lost, lowered] = [...apis.keys()].sort();
    const lostKeys = (await keysMatching(redis, `${generationRoot(t.keyPrefix, 1)}{${lost}}:*`)).filter(
      (k) => !/:(dict:.*|off|cmp)$/.test(k),
    );
    expect(lostKeys.length).toBeGreaterThan(0);
    await redis.unlink(...lostKeys);
    const { perBucket } = await dumpApiCounts(redis, space(1), lowered!, 'h');
    const [hour] = [...perBucket].find(([, c]) => c.total[0]! >= 5)!;
    await redis.hincrby(`${generationRoot(t.keyPrefix, 1)}{${lowered}}:h:${hour}:t`, '0', -5);

    const probe = await totalsProbe(redis, loadConfig(env), apis);
    const stopWatch = watchTotals(probe);
    const stopLive = liveTraffic(34);

    // A slowed-down rebuild (tiny fetches, one partition at a time), SIGKILLed part-way through the replay.
    const total = await applied(1);
    const slow = { ...env, INGEST_MAX_BYTES_PER_PARTITION: '4096', INGEST_CONCURRENCY: '1' };
    const first = startCli(['rebuild', '--yes', '--json'], slow);
    const progress = await waitFor(
      async () => {
        if (first.child.exitCode !== null) throw new Error(`rebuild exited: ${first.stderr()}`);
        const state = await readRebuildState(redis, t.keyPrefix);
        const done = state?.status === 'replaying' ? await applied(2) : 0;
        return done >= total * 0.15 ? done : false;
      },
      { timeoutMs: 120_000, intervalMs: 50, message: 'rebuild under way' },
    );
    await first.kill('SIGKILL');
    process.stderr.write(`[rebuild] SIGKILLed with ${progress} of ${total} offsets replayed\n`);
    expect(first.stdout()).toMatch(/rebuild counter generation 1 into 2/);
    expect(first.stdout()).toMatch(/rebuilt: every period/);
    // #45: --json: the replay's progress as JSON lines, with events/s and the time left.
    const progressLines = first
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{"progress":"rebuild"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(progressLines.length).toBeGreaterThan(0);
    expect(progressLines[0]).toMatchObject({ phase: 'replaying', eventsPerSecond: expect.any(Number) });
    expect(progressLines[0]).toHaveProperty('etaSeconds');
    expect(progressLines[0]!.total).toBeGreaterThan(0);
    const state = await readRebuildState(redis, t.keyPrefix);
    expect(state).toMatchObject({ status: 'replaying', source: 1, target: 2 });
    expect(await readGeneration(redis, t.keyPrefix)).toBe(1);

    // Status from another shell: per-partition progress, and that nobody runs it any more.
    await waitFor(
      async () => Date.now() - (await readRebuildState(redis, t.keyPrefix))!.heartbeatAt > STALE_MS,
      {
        timeoutMs: 30_000,
        message: 'heartbeat stale',
      },
    );
    const status = await runCli(['rebuild', 'status'], env);
    expect(status.stdout).toMatch(/rebuild 1 -> 2: replaying/);
    expect(status.stdout).toMatch(/NOT running/);
    expect(status.stdout).toMatch(/partition\s+replayed\s+of\s+done/);
    expect(status.stdout).toMatch(new RegExp(`${t.topic}/0`));

    const resumed = await runCli(['rebuild', 'resume'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/switched: queries read generation 2/);
    expect(resumed.stdout).toMatch(/done: generation 2 is current; deleted generation 1/);

    await stopLive();
    await settled(2);
    await sleep(500);
    const watch = await stopWatch();
    process.stderr.write(`[rebuild] ${watch.queries} rounds of queries during the rebuild\n`);
    expect(watch.violations).toEqual([]);
    // The watch ran through the rebuild (58 rounds idle, 9 once on a loaded CI machine).
    expect(watch.queries).toBeGreaterThanOrEqual(5);

    expect(await readGeneration(redis, t.keyPrefix)).toBe(2);
    expect((await readRebuildState(redis, t.keyPrefix))?.status).toBe('done');
    expect(await keysMatching(redis, `${generationRoot(t.keyPrefix, 1)}*`)).toEqual([]);
    expect(await storeDiff(redis, space(2), events, { now, hourRetentionMs: hourMs })).toEqual([]);
    const totals = await probe.totals();
    for (const [apiId, n] of totals) expect(n, apiId).toBe(events.filter((e) => e.apiId === apiId).length);
    await probe.close();
  });

  it('aborts: the current generation stays, the new one is deleted', async () => {
    const slow = { ...env, INGEST_MAX_BYTES_PER_PARTITION: '4096', INGEST_CONCURRENCY: '1' };
    const run = startCli(['rebuild', '--yes'], slow);
    await waitFor(async () => (await readRebuildState(redis, t.keyPrefix))?.status === 'replaying', {
      timeoutMs: 60_000,
      intervalMs: 50,
      message: 'replaying',
    });
    const abort = await runCli(['rebuild', 'abort'], env);
    expect(abort.code, abort.stderr).toBe(0);
    expect(abort.stdout).toMatch(/aborted: generation 2 stays current; deleted generation 3/);
    expect(await run.exited).toBe(4);
    expect(run.stderr()).toMatch(/rebuild aborted/);
    expect(await readGeneration(redis, t.keyPrefix)).toBe(2);
    expect((await readRebuildState(redis, t.keyPrefix))?.status).toBe('aborted');
    expect(await keysMatching(redis, `${generationRoot(t.keyPrefix, 3)}*`)).toEqual([]);
    const resume = await runCli(['rebuild', 'resume'], env);
    expect(resume.code).toBe(1);
    expect(resume.stderr).toMatch(/nothing to resume \(aborted\)/);
  });
});
