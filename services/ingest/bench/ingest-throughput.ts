/**
 * Ingest throughput benchmark (not a test): `npx tsx services/ingest/bench/ingest-throughput.ts`.
 *
 * 1. Pre-produces N generated events (@va/testkit's generator) into a fresh topic of P partitions
 *    on KAFKA_BROKERS (default: the stack's broker).
 * 2. Starts one compiled ingest worker process (services/ingest/dist, built when stale) against a private, fresh redis-server (infra/redis.conf: AOF
 *    everysec), or BENCH_REDIS_URL.
 * 3. Polls the partition watermarks in Redis and prints sustained events/s from the first to the last
 *    applied event, then Redis INFO commandstats.
 *
 * Options: --events N (1,000,000) --partitions P (4) --apis A (50) --keys K (20,000)
 *   --identities I (5,000) --span-hours H (6) --ordered (times in order over the span, as a topic holds
 *   its history; default: drawn independently) --seed S (1) --cpu-prof (write a V8 CPU profile of the
 *   worker into .cache/bench-prof/) --keep (keep topic and Redis data) --workers W (1: ingest workers
 *   in one consumer group) --key apiId|apiId+keyId (message key; apiId+keyId spreads an API over the
 *   partitions) --cluster (a private Redis Cluster of 3 masters + 3 replicas instead of one
 *   redis-server; Redis CPU is then the sum over the masters).
 *
 * One hot API over 4 partitions on the cluster, 1 worker against 2:
 *   npx tsx services/ingest/bench/ingest-throughput.ts --cluster --apis 1 --key apiId+keyId --workers 2
 * Worker tuning comes from the environment as for the service (services/ingest/src/settings.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { loadConfig } from '@va/config';
import { MESSAGE_KEYS, type MessageKey } from '@va/contracts';
import { connectRedis, masterNodes, readWatermarks, type RedisClient } from '@va/store';
import { ensureBuilt } from '@va/infra/build';
import { nodeFlagsOf, serviceEnvOf } from '@va/infra/service-runtime';
import { ROOT } from '@va/infra/paths';
import { startRedis, stopRedis } from '@va/infra/redis';
import { startRedisCluster, stopRedisCluster } from '@va/infra/redis-cluster';
import {
  createGenerator,
  createTopicsWithLeaders,
  eventMessage,
  freePort,
  localBrokerPid,
  processCpuSeconds,
  produceMessages,
} from '@va/testkit';

/** Peak resident memory of a process so far (VmHWM, MiB), from /proc (Linux). */
function peakRssMiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
    return line ? Number(line[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU seconds of Redis: of the server, or summed over a cluster's masters. */
async function redisCpuSeconds(redis: RedisClient): Promise<number> {
  let total = 0;
  for (const node of masterNodes(redis)) {
    const info = await node.info('cpu');
    const get = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
    total += get('used_cpu_user') + get('used_cpu_sys');
  }
  return total;
}

/** Calls slower than this (µs) are recorded and summarized: the Lua bound is ~5 ms. */
const SLOW_USEC = 2000;

type SlowEntry = [number, number, number, string[]];

/** Calls over 2, 5 and 10 ms per command, and the slowest few with their argument counts. */
async function printSlowLog(redis: RedisClient): Promise<void> {
  const entries: { usec: number; name: string; args: number }[] = [];
  for (const node of masterNodes(redis)) {
    for (const [, , usec, args] of (await node.call('SLOWLOG', 'GET', '-1')) as SlowEntry[]) {
      // Redis keeps 32 arguments and notes the rest: "... (N more arguments)".
      const more = Number(/\((\d+) more arguments\)/.exec(args.at(-1) ?? '')?.[1] ?? 0);
      const name = args[0]?.toLowerCase() === 'evalsha' ? `script ${args[1]?.slice(0, 8)}` : (args[0] ?? '?');
      entries.push({ usec: Number(usec), name, args: args.length + more });
    }
  }
  const over = (ms: number) => entries.filter((e) => e.usec > ms * 1000).length;
  console.log(`redis calls over 2 / 5 / 10 ms: ${over(2)} / ${over(5)} / ${over(10)}`);
  for (const e of entries.sort((a, b) => b.usec - a.usec).slice(0, 5)) {
    console.log(`  ${(e.usec / 1000).toFixed(1)} ms  ${e.name}  ${e.args} arguments`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000000' },
      partitions: { type: 'string', default: '4' },
      apis: { type: 'string', default: '50' },
      keys: { type: 'string', default: '20000' },
      identities: { type: 'string', default: '5000' },
      'span-hours': { type: 'string', default: '6' },
      ordered: { type: 'boolean', default: false },
      seed: { type: 'string', default: '1' },
      'cpu-prof': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      workers: { type: 'string', default: '1' },
      key: { type: 'string', default: 'apiId' },
      cluster: { type: 'boolean', default: false },
    },
  });
  const key = values.key as MessageKey;
  if (!MESSAGE_KEYS.includes(key)) throw new Error(`--key: one of ${MESSAGE_KEYS.join(', ')}`);
  const workerCount = Number(values.workers);
  const events = Number(values.events);
  const partitions = Number(values.partitions);
  const config = loadConfig();
  const id = `bench-ingest-${Date.now().toString(36)}`;
  const topic = `${id}.events`;
  const kafka = new Kafka({ clientId: 'bench', brokers: config.kafkaBrokers, logLevel: logLevel.WARN });

  // Redis: private and fresh unless given.
  let redisUrl = process.env.BENCH_REDIS_URL;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-redis-'));
  const redisPort = await freePort();
  const clusterOptions = { basePort: 7300, stateDir, log: () => undefined };
  let clusterNodes: string[] = [];
  if (values.cluster) clusterNodes = (await startRedisCluster(clusterOptions)).nodes;
  else if (!redisUrl) redisUrl = (await startRedis({ stateDir, port: redisPort, log: () => undefined })).url;
  const redis = connectRedis({ redisUrl: redisUrl ?? '', redisClusterNodes: clusterNodes });
  await redis.ping();
  // The slow log of the bench's own Redis records every call over 2 ms (the Lua bound is ~5 ms).
  const ownRedis = !process.env.BENCH_REDIS_URL;
  if (ownRedis) {
    for (const node of masterNodes(redis)) {
      await node.call(
        'CONFIG',
        'SET',
        'slowlog-log-slower-than',
        String(SLOW_USEC),
        'slowlog-max-len',
        '100000',
      );
    }
  }

  const admin = kafka.admin();
  await admin.connect();
  await createTopicsWithLeaders(
    admin,
    [topic, `${topic}.backfill`, `${topic}.dlq`].map((t) => ({ topic: t, numPartitions: partitions })),
  );

  const now = Date.now();
  const spanMs = Number(values['span-hours']) * 3_600_000;
  const generator = createGenerator({
    seed: Number(values.seed),
    apis: Number(values.apis),
    keys: Number(values.keys),
    identities: Number(values.identities),
    startMs: now - spanMs,
    spanMs,
    ...(values.ordered && { timeOrdered: events }),
  });
  let bytes = 0;
  function* messages() {
    for (let n = 0; n < events; n++) {
      const m = eventMessage(generator.next(), key);
      bytes += (m.value as string).length;
      yield m;
    }
  }
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const producedAt = Date.now();
  await produceMessages(producer, messages(), { topic, chunk: 3000, inFlight: 8 });
  await producer.disconnect();
  const produceSeconds = (Date.now() - producedAt) / 1000;
  console.log(
    `data set: ${events} events, ${values.apis} APIs, ${values.keys} keys, ${values.identities} identities, ` +
      `times over ${values['span-hours']} h${values.ordered ? ' in order' : ''}, ${partitions} partitions, avg ${Math.round(bytes / events)} B/event, ` +
      `key ${key}, ${workerCount} worker(s), ${values.cluster ? 'Redis Cluster 3+3' : 'one Redis'}`,
  );
  console.log(`produced in ${produceSeconds.toFixed(1)} s (${Math.round(events / produceSeconds)} events/s)`);

  const ends = (await admin.fetchTopicOffsets(topic)).map((p) => ({
    topic,
    partition: p.partition,
    last: Number(p.high) - 1,
  }));
  const profDir = path.join(ROOT, '.cache', 'bench-prof');
  const nodeArgs = [
    ...nodeFlagsOf('ingest'),
    ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []),
  ];
  // The compiled worker, as `npm start` runs it (bench/src/services.ts says why not through tsx).
  await ensureBuilt();
  const workers = await Promise.all(
    Array.from({ length: workerCount }, async () =>
      spawn(process.execPath, [...nodeArgs, '--enable-source-maps', 'services/ingest/dist/main.js'], {
        cwd: ROOT,
        stdio: ['ignore', 'inherit', 'inherit'],
        env: {
          ...serviceEnvOf('ingest'),
          ...process.env,
          KAFKA_BROKERS: config.kafkaBrokers.join(','),
          KAFKA_TOPIC: topic,
          KAFKA_GROUP: `${id}-ingest`,
          REDIS_URL: redisUrl ?? '',
          REDIS_CLUSTER_NODES: clusterNodes.join(','),
          REDIS_KEY_PREFIX: id,
          INGEST_METRICS_PORT: String(await freePort()),
          HOST: '127.0.0.1',
          LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
          KAFKAJS_NO_PARTITIONER_WARNING: '1',
        },
      }),
    ),
  );
  const workerCpu = () => workers.reduce((sum, w) => sum + processCpuSeconds(w.pid), 0);
  // The broker's CPU when it runs here (a loopback address): NaN, and left out, otherwise.
  const kafkaPid = localBrokerPid(config.kafkaBrokers[0]);
  const startedAt = Date.now();
  const space = { prefix: id, generation: 1 };
  let firstAt: number | undefined;
  let lastAt: number | undefined;
  let applied = 0;
  let appliedAtFirst = 0;
  let cpuAtFirst = { worker: 0, redis: 0, kafka: 0 };
  let cpuAtLast = { worker: 0, redis: 0, kafka: 0 };
  const samples: string[] = [];
  while (lastAt === undefined) {
    for (const w of workers) if (w.exitCode !== null) throw new Error(`worker exited with ${w.exitCode}`);
    const wms = await readWatermarks(redis, space, ends);
    applied = wms.reduce<number>((sum, wm) => sum + (wm === null ? 0 : wm + 1), 0);
    const t = Date.now();
    if (applied > 0 && firstAt === undefined) {
      firstAt = t;
      appliedAtFirst = applied;
      cpuAtFirst = {
        worker: workerCpu(),
        redis: await redisCpuSeconds(redis),
        kafka: processCpuSeconds(kafkaPid),
      };
    }
    if (applied >= events) {
      lastAt = t;
      cpuAtLast = {
        worker: workerCpu(),
        redis: await redisCpuSeconds(redis),
        kafka: processCpuSeconds(kafkaPid),
      };
    }
    if (samples.length === 0 || t - Number(samples[samples.length - 1]!.split(' ')[0]) >= 1000) {
      samples.push(`${t} ${applied}`);
    }
    if (t - startedAt > 600_000) throw new Error(`timeout: ${applied}/${events} applied`);
    await sleep(50);
  }
  const seconds = (lastAt - firstAt!) / 1000;
  console.log(`worker: first event applied ${((firstAt! - startedAt) / 1000).toFixed(1)} s after start`);
  console.log(
    `SUSTAINED: ${events} events in ${seconds.toFixed(2)} s = ${Math.round(events / seconds)} events/s`,
  );
  const perSecond = samples.map((s, n) => {
    if (n === 0) return '';
    const [t1, a1] = s.split(' ').map(Number) as [number, number];
    const [t0, a0] = samples[n - 1]!.split(' ').map(Number) as [number, number];
    return String(Math.round(((a1 - a0) * 1000) / (t1 - t0)));
  });
  console.log(`per second: ${perSecond.filter(Boolean).join(' ')}`);
  // CPU per event does not depend on what else runs on the machine (wall-clock rates do).
  const counted = events - appliedAtFirst;
  const workerUs = ((cpuAtLast.worker - cpuAtFirst.worker) * 1e6) / counted;
  const redisUs = ((cpuAtLast.redis - cpuAtFirst.redis) * 1e6) / counted;
  const kafkaUs = ((cpuAtLast.kafka - cpuAtFirst.kafka) * 1e6) / counted;
  const kafkaPart = Number.isFinite(kafkaUs) ? `, kafka ${kafkaUs.toFixed(1)} us` : '';
  console.log(
    `CPU per event: worker ${workerUs.toFixed(1)} us, redis ${redisUs.toFixed(1)} us${kafkaPart} ` +
      `(one dedicated core each would sustain ~${Math.round(1e6 / workerUs)} and ~${Math.round(1e6 / redisUs)} events/s)`,
  );

  console.log(`worker peak RSS: ${workers.map((w) => `${peakRssMiB(w.pid).toFixed(0)} MiB`).join(', ')}`);

  await Promise.all(
    workers.map((w) => {
      w.kill('SIGTERM');
      return new Promise((resolve) => w.once('exit', resolve));
    }),
  );
  const info = (await Promise.all(masterNodes(redis).map((node) => node.info('commandstats')))).join('\n');
  const stats = info
    .split('\n')
    .filter((l) => l.startsWith('cmdstat_'))
    .map((l) => {
      const [name, rest] = l.trim().split(':') as [string, string];
      const f = Object.fromEntries(rest.split(',').map((kv) => kv.split('=') as [string, string]));
      return {
        name: name.slice(8),
        calls: Number(f.calls),
        usec: Number(f.usec),
        perCall: Number(f.usec_per_call),
      };
    })
    .sort((a, b) => b.usec - a.usec)
    .slice(0, 8);
  console.log('redis commandstats (top by time):');
  for (const s of stats) {
    console.log(
      `  ${s.name.padEnd(12)} calls=${s.calls} total=${(s.usec / 1e6).toFixed(2)}s per_call=${s.perCall}us`,
    );
  }
  const memory = await Promise.all(
    masterNodes(redis).map(async (node) => (await node.info('memory')).match(/used_memory_human:(\S+)/)?.[1]),
  );
  console.log(`redis used_memory: ${memory.join(' + ')}`);
  if (ownRedis) await printSlowLog(redis);
  if (values['cpu-prof']) console.log(`cpu profile in ${profDir}`);

  redis.disconnect();
  if (!values.keep) {
    await admin.deleteTopics({ topics: [topic, `${topic}.backfill`, `${topic}.dlq`] });
    if (values.cluster) await stopRedisCluster({ ...clusterOptions, removeData: true });
    else if (!process.env.BENCH_REDIS_URL)
      await stopRedis({ stateDir, port: redisPort, log: () => undefined });
    // The private Redis's data folder (its AOF grows with the events); --keep leaves it for a look.
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
  await admin.disconnect();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
