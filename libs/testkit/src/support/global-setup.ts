// Global setup of the `integration` project: starts the build of the services' bundles when they are
// stale (the tests run `services/<name>/dist/main.js`, as `npm start` does: processes.ts), and finds or
// starts Kafka and Redis once per run and provides their addresses (inject('kafkaBrokers'),
// inject('redisUrl')). Source, in order:
//   1. KAFKA_BROKERS + REDIS_URL from the environment;
//   2. a Docker engine that answers quickly -> testcontainers;
//   3. local processes from infra/ (Kafka from Maven jars, redis-server).
// TEST_SERVERS=env|docker|local forces one.
import type { TestProject } from 'vitest/node';
import { ensureBuilt } from '@va/infra/build';
import { dockerAvailable, serversFromDocker } from './servers/docker.js';
import { serversFromEnv } from './servers/from-env.js';
import { serversFromLocalProcesses } from './servers/local.js';
import type { ServerSource, TestServers } from './servers/types.js';

async function chooseSource(): Promise<ServerSource> {
  const forced = process.env.TEST_SERVERS;
  if (forced === 'env' || forced === 'docker' || forced === 'local') return forced;
  if (process.env.KAFKA_BROKERS && process.env.REDIS_URL) return 'env';
  return (await dockerAvailable()) ? 'docker' : 'local';
}

async function obtain(source: ServerSource): Promise<TestServers> {
  if (source === 'env') {
    const servers = serversFromEnv();
    if (!servers) throw new Error('TEST_SERVERS=env needs both KAFKA_BROKERS and REDIS_URL');
    return servers;
  }
  return source === 'docker' ? serversFromDocker() : serversFromLocalProcesses();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  // The build goes on in the background, under the build lock (taken before ensureBuilt's first await),
  // while the servers start and the unit tests run; setup-file.ts waits for it in every integration file.
  const building = ensureBuilt().catch((error: unknown) => {
    // setup-file.ts then finds the bundles stale and builds again, failing its file with the error.
    process.stderr.write(`[test-build] failed: ${String(error)}\n`);
  });
  const servers = await obtain(await chooseSource());
  process.stderr.write(`[test-servers] ${servers.origin}; ready in ${Date.now() - started} ms\n`);
  project.provide('kafkaBrokers', servers.kafkaBrokers);
  project.provide('redisUrl', servers.redisUrl);
  return async () => {
    await building;
    await servers.release();
  };
}
