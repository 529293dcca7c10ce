/**
 * Kafka and Redis for the bench.
 *
 * Kafka: KAFKA_BROKERS when set, else the local stack's broker (infra/kafka.mjs, 127.0.0.1:9092),
 * started when it is not running. The bench only ever uses topics of its own.
 *
 * Redis: a dedicated redis-server with the project's config (infra/redis.conf: AOF everysec,
 * listpack limits), port 6390 (BENCH_REDIS_PORT), data in .cache/bench/redis (another port: .cache/bench/redis-<port>). Dedicated because
 * (1) "memory per counter" is INFO used_memory minus a baseline, which only means something when
 * nobody else writes to that server meanwhile, and (2) a 10M-event data set must not land in the
 * Redis the other engineers work against. BENCH_REDIS_URL points the bench at another server
 * instead; the shared Redis on port 6379 is refused either way.
 */
import path from 'node:path';
import { startKafka, stopKafka } from '@va/infra/kafka';
import { CACHE_DIR } from '@va/infra/paths';
import { startRedis, stopRedis } from '@va/infra/redis';

export interface Servers {
  kafkaBrokers: string[];
  redisUrl: string;
  /** Stops what this call started (unless keep), leaves the rest alone. */
  stop(keep: boolean): Promise<void>;
}

const DEFAULT_REDIS_PORT = 6390;

/**
 * Where the bench Redis on `port` keeps its data and pid file: one directory per port, so that two benches on
 * two ports (BENCH_REDIS_PORT) neither load each other's AOF nor stop each other's server.
 */
export const benchRedisDir = (port: number): string =>
  path.join(CACHE_DIR, 'bench', port === DEFAULT_REDIS_PORT ? 'redis' : `redis-${port}`);

function refuseSharedRedis(url: string): void {
  const port = new URL(url).port || '6379';
  if (port === '6379')
    throw new Error(`refusing ${url}: port 6379 is the shared Redis; use BENCH_REDIS_URL elsewhere`);
}

export async function startServers(log: (message: string) => void): Promise<Servers> {
  const env = process.env;
  const redisPort = Number(env.BENCH_REDIS_PORT || DEFAULT_REDIS_PORT);
  const redisDir = benchRedisDir(redisPort);
  const [kafka, redis] = await Promise.all([
    env.KAFKA_BROKERS ? undefined : startKafka({ log: (m) => log(`kafka: ${m}`) }),
    env.BENCH_REDIS_URL
      ? undefined
      : startRedis({ stateDir: redisDir, port: redisPort, log: (m) => log(`redis: ${m}`) }),
  ]);
  const kafkaBrokers = (kafka?.brokers ?? env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  const redisUrl = redis?.url ?? env.BENCH_REDIS_URL!;
  refuseSharedRedis(redisUrl);
  log(`kafka ${kafkaBrokers.join(',')}${kafka?.reused ? ' (already running)' : kafka ? ' (started)' : ''}`);
  log(`redis ${redisUrl}${redis?.reused ? ' (already running)' : redis ? ' (started)' : ''}`);
  return {
    kafkaBrokers,
    redisUrl,
    async stop(keep) {
      if (keep) return;
      await Promise.all([
        redis && !redis.reused ? stopRedis({ stateDir: redisDir, port: redisPort, log }) : undefined,
        kafka && !kafka.reused ? stopKafka({ log }) : undefined,
      ]);
    },
  };
}
