/**
 * End-to-end stack of one test: Kafka topics, the real ingest worker and query service as
 * child processes (@va/testkit/support), a producer, and helpers for root keys, APIs and queries.
 */
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { Redis } from 'ioredis';
import { createClient, type AnalyticsClient, type ClientOptions } from '@va/client';
import type { VerificationEvent } from '@va/contracts';
import { createRootKey, registerApi, revokeRootKey } from '@va/store';
import {
  createTopics,
  deleteTopics,
  testEnv,
  type TestEnv,
  startService,
  waitFor,
  type ServiceProcess,
} from '@va/testkit/support';
import { deletePrefix } from '@va/store/testing';

export interface Stack {
  t: TestEnv;
  redis: Redis;
  ingest: ServiceProcess;
  query: ServiceProcess;
  produce(events: readonly VerificationEvent[]): Promise<void>;
  rootKey(permissions?: string[], workspace?: string): Promise<string>;
  revokeRootKey(key: string): Promise<void>;
  registerApi(apiId: string, workspace: string): Promise<void>;
  /** The typed client (@va/client) for the query service, with the key or read token (and options: its deadline). */
  client(token: string, options?: Omit<ClientOptions, 'baseUrl' | 'token'>): AnalyticsClient;
  /** Raw GET <queryUrl>/v1/analytics.getVerifications?<qs> with the key. */
  get(qs: string, key: string): Promise<{ status: number; body: unknown; headers: Headers }>;
  /** Waits until the service counts `total` events of the API over its whole retention. */
  waitForTotal(apiId: string, total: number, key: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(name: string, env: Record<string, string> = {}): Promise<Stack> {
  const t = await testEnv(name);
  await createTopics(t.kafkaBrokers, [t.topic, t.dlqTopic, t.backfillTopic], 4);
  const fullEnv = { ...t.env, ...env };
  const redis = new Redis(t.redisUrl);
  const ingest = startService('ingest', fullEnv);
  const query = startService('query', fullEnv);
  await Promise.all([
    ingest.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`),
    query.waitForHealth(`${t.queryUrl}/health`),
  ]);
  const kafka = new Kafka({ clientId: `${name}-producer`, brokers: t.kafkaBrokers, logLevel: logLevel.WARN });
  const producer: Producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();

  const get = async (qs: string, key: string) => {
    const response = await fetch(`${t.queryUrl}/v1/analytics.getVerifications?${qs}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return { status: response.status, body: (await response.json()) as unknown, headers: response.headers };
  };

  return {
    t,
    redis,
    ingest,
    query,
    async produce(events) {
      for (let i = 0; i < events.length; i += 500) {
        await producer.send({
          topic: t.topic,
          acks: -1,
          messages: events.slice(i, i + 500).map((e) => ({ key: e.apiId, value: JSON.stringify(e) })),
        });
      }
    },
    async rootKey(permissions = ['api.*.read_api'], workspace = 'ws_1') {
      return (
        await createRootKey(redis, t.keyPrefix, { workspaceId: workspace, permissions, now: Date.now() })
      ).key;
    },
    async revokeRootKey(key) {
      await revokeRootKey(redis, t.keyPrefix, key, Date.now());
    },
    async registerApi(apiId, workspace) {
      const result = await registerApi(redis, t.keyPrefix, apiId, workspace);
      if (!result.ok) throw new Error(`${apiId} belongs to ${result.owner}`);
    },
    get,
    client: (token, options) => createClient({ ...options, baseUrl: t.queryUrl, token }),
    async waitForTotal(apiId, total, key, timeoutMs = 120_000) {
      const client = createClient({ baseUrl: t.queryUrl, token: key });
      let last: unknown;
      await waitFor(
        async () => {
          // No start: no lower bound, read from the first slice holding data. (start=0 would walk every
          // hour since 1970 under a 100-year hour retention, as the vectors test configures: minutes.)
          const { datapoints } = await client.getVerifications({ apiId });
          last = datapoints;
          return datapoints[0]?.total === total;
        },
        {
          timeoutMs,
          intervalMs: 250,
          message: `${apiId}: ${total} events counted (last answer ${JSON.stringify(last)})`,
        },
      );
    },
    async stop() {
      await producer.disconnect();
      await Promise.all([ingest.kill(), query.kill()]);
      await deleteTopics(t.kafkaBrokers, [t.topic, t.dlqTopic, t.backfillTopic]);
      await deletePrefix(t.redisUrl, t.keyPrefix);
      redis.disconnect();
    },
  };
}
