// Servers in containers (testcontainers), used only when a Docker engine answers quickly.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestServers } from './types.js';
import { freePort } from '../ports.js';

const KAFKA_IMAGE = 'apache/kafka:3.9.1';
const REDIS_IMAGE = 'redis:7';
const DETECT_TIMEOUT_MS = 5_000;

function socketCandidates(): string[] {
  const home = os.homedir();
  return [
    '/var/run/docker.sock',
    path.join(home, '.docker', 'run', 'docker.sock'),
    path.join(home, '.docker', 'desktop', 'docker.sock'),
    process.env.XDG_RUNTIME_DIR ? path.join(process.env.XDG_RUNTIME_DIR, 'docker.sock') : '',
  ].filter(Boolean);
}

/** True when a container runtime answers within a few seconds. Skips the probe when no socket exists. */
export async function dockerAvailable(): Promise<boolean> {
  if (!process.env.DOCKER_HOST && !socketCandidates().some((p) => fs.existsSync(p))) return false;
  const { getContainerRuntimeClient } = await import('testcontainers');
  const timeout = new Promise<false>((resolve) =>
    setTimeout(() => resolve(false), DETECT_TIMEOUT_MS).unref(),
  );
  const probe = getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
  return Promise.race([probe, timeout]);
}

export async function serversFromDocker(): Promise<TestServers> {
  const { GenericContainer, Wait } = await import('testcontainers');
  // Kafka must advertise the address clients use, so the host port is chosen up front and bound fixed.
  const kafkaPort = await freePort();
  const kafka = await new GenericContainer(KAFKA_IMAGE)
    .withExposedPorts({ container: 9092, host: kafkaPort })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${kafkaPort}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_NUM_PARTITIONS: '4',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .withStartupTimeout(180_000)
    .start();
  const redis = await new GenericContainer(REDIS_IMAGE)
    .withExposedPorts(6379)
    .withCommand([
      'redis-server',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      '--hash-max-listpack-entries',
      '512',
      '--hash-max-listpack-value',
      '64',
    ])
    .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
    .start();
  return {
    kafkaBrokers: `127.0.0.1:${kafkaPort}`,
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    origin: `testcontainers (${KAFKA_IMAGE}, ${REDIS_IMAGE})`,
    release: async () => {
      await Promise.allSettled([kafka.stop(), redis.stop()]);
    },
  };
}
