// Servers as local processes from infra/ (no Docker here): the project's Kafka and a redis-server on ports
// of their own (not the dev stack's 9092/6380), data under .cache/test-*. A run reuses servers that are
// already up; servers a harness run started are stopped by the last run to finish (see leases.ts),
// unless TEST_KEEP_SERVERS=1 (then they stay up for quicker reruns; `npm run stack` does not touch them).
import fs from 'node:fs';
import path from 'node:path';
import { startKafka, stopKafka, type KafkaOptions } from '@va/infra/kafka';
import { startRedis, stopRedis } from '@va/infra/redis';
import { CACHE_DIR } from '@va/infra/paths';
import { Leases } from './leases.js';
import type { TestServers } from './types.js';

const KAFKA_PORT = Number(process.env.TEST_KAFKA_PORT || 19092);
const KAFKA_CONTROLLER_PORT = Number(process.env.TEST_KAFKA_CONTROLLER_PORT || 19093);
const REDIS_PORT = Number(process.env.TEST_REDIS_PORT || 16380);

const kafkaOptions = {
  stateDir: path.join(CACHE_DIR, 'test-kafka'),
  port: KAFKA_PORT,
  controllerPort: KAFKA_CONTROLLER_PORT,
  // A broker for one test run: C1 and the serial collector, half the CPU of the stack's flags (infra/kafka.mjs).
  jvm: 'light',
} satisfies KafkaOptions;
// No AOF: no test restarts the run's Redis (those that crash Redis start their own with the project's
// config: redis-server.ts), so an AOF would be CPU spent for nothing.
const redisOptions = { stateDir: path.join(CACHE_DIR, 'test-redis'), port: REDIS_PORT, appendonly: false };
const leases = new Leases(path.join(CACHE_DIR, 'test-servers'));
const log = (message: string) => process.stderr.write(`[test-servers] ${message}\n`);

/** Marks a server as started by a harness run, so that the last run to leave stops it. */
const ownedMarker = (stateDir: string) => path.join(stateDir, 'started-by-tests');

export async function serversFromLocalProcesses(): Promise<TestServers> {
  leases.acquire();
  const [kafka, redis] = await leases.withLock(async () => {
    const settled = await Promise.allSettled([
      startKafka({ ...kafkaOptions, log }),
      startRedis({ ...redisOptions, log }),
    ]);
    const [kafkaResult, redisResult] = settled;
    const k = kafkaResult.status === 'fulfilled' ? kafkaResult.value : undefined;
    const r = redisResult.status === 'fulfilled' ? redisResult.value : undefined;
    const failure = settled.find((s) => s.status === 'rejected');
    if (!k || !r) {
      // Setup failed, so vitest will not call our teardown: undo what this call started.
      if (k && !k.reused) await stopKafka({ ...kafkaOptions, log });
      if (r && !r.reused) await stopRedis({ ...redisOptions, log });
      leases.releaseAndCheckOthers();
      throw failure?.status === 'rejected' ? failure.reason : new Error('test servers did not start');
    }
    if (!k.reused) fs.writeFileSync(ownedMarker(kafkaOptions.stateDir), `${process.pid}\n`);
    if (!r.reused) fs.writeFileSync(ownedMarker(redisOptions.stateDir), `${process.pid}\n`);
    return [k, r] as const;
  });
  const origin =
    `local processes (kafka ${kafka.brokers} ${kafka.reused ? 'reused' : `started in ${kafka.startMs} ms`}, ` +
    `redis ${redis.url} ${redis.reused ? 'reused' : 'started'})`;
  return { kafkaBrokers: kafka.brokers, redisUrl: redis.url, origin, release };
}

async function release(): Promise<void> {
  await leases.withLock(async () => {
    if (leases.releaseAndCheckOthers()) return;
    const keep = process.env.TEST_KEEP_SERVERS === '1';
    for (const [stop, options] of [
      [stopKafka, kafkaOptions],
      [stopRedis, redisOptions],
    ] as const) {
      const marker = ownedMarker(options.stateDir);
      if (!fs.existsSync(marker)) continue; // someone started it on purpose: leave it
      if (!keep) await stop({ ...options, log });
      fs.rmSync(marker, { force: true });
    }
  });
}
