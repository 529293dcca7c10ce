/**
 * A Kafka broker of one test file's own (infra/kafka.mjs), for tests that stop, kill or restart it:
 * never the shared one. (A proxy needs no broker of its own: startKafkaProxy works in front of the
 * run's.) State lives under a fresh temporary directory, removed by `destroy()`.
 *
 * Ports: free ones picked by the OS; with TEST_PORT_RANGE=<from>-<to> set (an engineer's own range
 * on a shared machine), free ones from that range.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startKafka, stopKafka, type KafkaOptions } from '@va/infra/kafka';
import { freePort } from './ports.js';
import { waitFor } from './wait.js';

const taken = new Set<number>();

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free port, from TEST_PORT_RANGE when set. */
export async function privatePort(): Promise<number> {
  const range = process.env.TEST_PORT_RANGE?.match(/^(\d+)-(\d+)$/);
  if (!range) return freePort();
  for (let port = Number(range[1]); port <= Number(range[2]); port++) {
    if (taken.has(port)) continue;
    if (await portFree(port)) {
      taken.add(port);
      return port;
    }
  }
  throw new Error(`no free port in TEST_PORT_RANGE=${process.env.TEST_PORT_RANGE}`);
}

export interface PrivateKafka {
  brokers: string[];
  /** Stops the broker: a controlled shutdown (SIGTERM), or SIGKILL with `{ kill: true }`. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same ports and data. */
  start(): Promise<void>;
  /** Stops everything and removes the state directory. */
  destroy(): Promise<void>;
}

export async function startPrivateKafka(options: { name: string }): Promise<PrivateKafka> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `kafka-${options.name}-`));
  const port = await privatePort();
  const controllerPort = await privatePort();
  const kafkaOptions: KafkaOptions = {
    stateDir,
    port,
    controllerPort,
    heapMax: '512m',
    jvm: 'light',
    logLevel: 'WARN',
    log: () => undefined,
  };
  await startKafka(kafkaOptions);
  return {
    brokers: [`127.0.0.1:${port}`],
    async stop(stop = {}) {
      // stopKafka sends SIGTERM and escalates to SIGKILL after timeoutMs.
      await stopKafka({ ...kafkaOptions, timeoutMs: stop.kill ? 0 : 30_000 });
    },
    async start() {
      // A killed JVM's threads may hold its sockets for a moment after the process is reported gone.
      for (const p of [port, controllerPort]) {
        await waitFor(() => portFree(p), { timeoutMs: 60_000, message: `port ${p} released` });
      }
      await startKafka(kafkaOptions);
    },
    async destroy() {
      await stopKafka({ ...kafkaOptions, timeoutMs: 5_000 }).catch(() => undefined);
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
