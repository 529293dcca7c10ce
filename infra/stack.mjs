// The local stack's servers: Kafka (KRaft, from Maven jars) and Redis, plus the topics.
//   npm run stack -- start    start what is not running (idempotent), create missing topics
//   npm run stack -- stop     stop the local Kafka and Redis (SIGTERM, SIGKILL after a timeout)
//   npm run stack -- status   what runs, where
// Where KAFKA_BROKERS or REDIS_URL (or REDIS_CLUSTER_NODES) is set, that server is used and no local one is
// started or stopped.
import { kafkaStatus, startKafka, stopKafka } from './kafka.mjs';
import { redisStatus, startRedis, stopRedis } from './redis.mjs';
import { makeLog } from './lib/log.mjs';
import { ensureTopics, topicNames } from './lib/topics.mjs';

const log = makeLog('stack');
/** An external REDIS_URL may hold a password: the launcher names the variable, never its value. */
export const NOT_SHOWN = 'not shown: it may hold a password';

/** Which servers the stack runs itself (the others come from the environment). */
export function localServers(env = process.env) {
  return { kafka: !env.KAFKA_BROKERS, redis: !env.REDIS_URL && !env.REDIS_CLUSTER_NODES };
}

/**
 * Starts (or finds) both servers and the topics.
 * @returns {Promise<{ kafkaBrokers: string, redisUrl: string, startedKafka: boolean, startedRedis: boolean }>}
 */
export async function startStack(env = process.env) {
  const local = localServers(env);
  const settled = await Promise.allSettled([
    local.kafka ? startKafka({ log: makeLog('kafka') }) : undefined,
    local.redis ? startRedis({ log: makeLog('redis') }) : undefined,
  ]);
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) {
    // Leave nothing half-started behind: stop the server this call did start.
    const [k, r] = settled.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
    await stopStack({ kafka: Boolean(k && !k.reused), redis: Boolean(r && !r.reused) }, env);
    throw failure.reason;
  }
  const [kafka, redis] = settled.map((s) => s.value);
  const kafkaBrokers = kafka ? kafka.brokers : env.KAFKA_BROKERS;
  const redisUrl = redis ? redis.url : (env.REDIS_URL ?? '');
  if (kafka?.reused) log(`kafka already running (pid ${kafka.pid}) on ${kafkaBrokers}`);
  if (redis?.reused) log(`redis already running (pid ${redis.pid}) on ${redisUrl}`);
  if (!kafka) log(`kafka from KAFKA_BROKERS=${kafkaBrokers}`);
  if (!redis && env.REDIS_CLUSTER_NODES)
    log(`redis cluster from REDIS_CLUSTER_NODES=${env.REDIS_CLUSTER_NODES}`);
  else if (!redis) log(`redis from REDIS_URL (${NOT_SHOWN})`);
  await ensureTopics(kafkaBrokers, env, log);
  return {
    kafkaBrokers,
    redisUrl,
    startedKafka: Boolean(kafka && !kafka.reused),
    startedRedis: Boolean(redis && !redis.reused),
    /** A local server's URL holds no password and may be shown; an external REDIS_URL is never shown. */
    localRedis: Boolean(redis),
  };
}

/** Stops the local servers: Redis and Kafka in parallel (nothing else depends on them any more). */
export async function stopStack({ kafka = true, redis = true } = {}, env = process.env) {
  const local = localServers(env);
  await Promise.all([
    kafka && local.kafka ? stopKafka({ log: makeLog('kafka') }) : undefined,
    redis && local.redis ? stopRedis({ log: makeLog('redis') }) : undefined,
  ]);
}

async function status(env = process.env) {
  const local = localServers(env);
  const lines = [];
  if (local.kafka) {
    const k = await kafkaStatus();
    lines.push(
      `kafka  ${k.ready ? 'ready' : k.running ? 'starting' : 'stopped'}  ${k.brokers}  pid ${k.pid ?? '-'}`,
    );
  } else lines.push(`kafka  external  ${env.KAFKA_BROKERS}`);
  if (local.redis) {
    const r = await redisStatus();
    lines.push(
      `redis  ${r.ready ? 'ready' : r.running ? 'starting' : 'stopped'}  ${r.url}  pid ${r.pid ?? '-'}`,
    );
  } else
    lines.push(
      `redis  external  ${env.REDIS_CLUSTER_NODES ? `cluster ${env.REDIS_CLUSTER_NODES}` : `REDIS_URL (${NOT_SHOWN})`}`,
    );
  const { topic, dlqTopic, backfillTopic } = topicNames(env);
  lines.push(`topics ${topic}, ${dlqTopic}, ${backfillTopic}`);
  console.log(lines.join('\n'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const actions = {
    start: async () => {
      const stack = await startStack();
      console.log(
        `KAFKA_BROKERS=${stack.kafkaBrokers}${stack.localRedis ? ` REDIS_URL=${stack.redisUrl}` : ''}`,
      );
    },
    stop: () => stopStack(),
    status: () => status(),
  };
  const action = actions[process.argv[2]];
  if (!action) {
    console.error('usage: npm run stack -- start|stop|status');
    process.exit(2);
  }
  action().catch((error) => {
    console.error(`[stack] ${error.message}`);
    process.exit(1);
  });
}
