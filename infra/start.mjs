// `npm start`: installs what is missing, builds the services when a source changed (infra/lib/build.mjs), starts
// Kafka + Redis (or uses KAFKA_BROKERS / REDIS_URL), then the compiled ingest worker, compactor and query
// service (services/<name>/dist/main.js) in the foreground. SIGINT / SIGTERM stops the services,
// then the servers this run started, and exits with nothing left running.
/* global AbortSignal -- Node 20 built-in; the shared eslint config lists only a few globals. */
import { ensureBuilt } from './lib/build.mjs';
import { ensureKafkaJars, ensureNodeModules, ensureRedisServer } from './lib/install.mjs';
import { makeLog } from './lib/log.mjs';
import { Supervisor } from './lib/supervisor.mjs';
import { localServers, NOT_SHOWN, startStack, stopStack } from './stack.mjs';

const SERVICES = ['ingest', 'compactor', 'query'];
const log = makeLog('start');

let shuttingDown = false;
let stack;
const supervisors = [];

async function shutdown(signal) {
  // Ctrl-C reaches us twice (from the terminal and forwarded by npm): one shutdown, whatever arrives.
  if (shuttingDown) return;
  shuttingDown = true;
  log(`${signal}: stopping services`);
  await Promise.all(supervisors.map((s) => s.stop()));
  if (stack) {
    const which = [stack.startedKafka && 'kafka', stack.startedRedis && 'redis'].filter(Boolean);
    if (which.length > 0) log(`stopping ${which.join(' and ')}`);
    await stopStack({ kafka: stack.startedKafka, redis: stack.startedRedis });
  }
  log('stopped');
  process.exit(0);
}

async function waitForQueryHealth(port) {
  const url = `http://127.0.0.1:${port}/health`;
  for (let i = 0; i < 600 && !shuttingDown; i++) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200)
        return log(`ready: query service at http://127.0.0.1:${port} (Ctrl-C stops all)`);
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main() {
  // Stay in the foreground until a signal, even while no service is running (the servers are detached).
  setInterval(() => {}, 1 << 30);
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const local = localServers();
  ensureNodeModules();
  if (local.redis) ensureRedisServer();
  if (local.kafka) ensureKafkaJars();
  // esbuild works in a process of its own: the build and Kafka's start overlap.
  const [started, built] = await Promise.allSettled([startStack(), ensureBuilt()]);
  if (started.status === 'fulfilled') stack = started.value; // stopped by shutdown() even when the build failed
  for (const step of [started, built]) if (step.status === 'rejected') throw step.reason;
  if (shuttingDown) return;

  const env = { ...process.env, KAFKA_BROKERS: stack.kafkaBrokers, REDIS_URL: stack.redisUrl };
  for (const name of SERVICES) {
    const supervisor = new Supervisor(name, env);
    if (!supervisor.exists()) {
      log(`${supervisor.entry} does not exist yet: not starting ${name}`);
      continue;
    }
    await supervisor.stopOrphan();
    supervisors.push(supervisor);
    supervisor.start();
  }
  log(
    `KAFKA_BROKERS=${stack.kafkaBrokers} ${stack.localRedis ? `REDIS_URL=${stack.redisUrl}` : `REDIS_URL (${NOT_SHOWN})`}`,
  );
  if (supervisors.some((s) => s.name === 'query')) await waitForQueryHealth(Number(process.env.PORT || 8080));
}

main().catch(async (error) => {
  log(`failed: ${error.stack ?? error.message}`);
  await shutdown('error');
  process.exit(1);
});
