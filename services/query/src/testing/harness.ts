/**
 * Integration-test harness of the query service: a server (fastify.inject, no port) on the
 * test Redis under a private key prefix, with helpers to create root keys, register APIs,
 * seed events and call the route.
 */
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { Registry } from 'prom-client';
import { createClient, type AnalyticsClient, type ClientOptions } from '@va/client';
import type { VerificationEvent } from '@va/contracts';
import { createRootKey, registerApi, revokeRootKey } from '@va/store';
import { loadConfig, type Config } from '@va/config';
import { deletePrefix } from '@va/store/testing';
import type { App } from '../http/app';
import { createServer } from '../server';
import { seedEvents } from '@va/ingest/testing';
import { ANSWER_BUDGET_MS } from '@va/testkit/time';

export interface QueryHarness {
  app: App;
  redis: Redis;
  config: Config;
  now: number;
  /** A root key of `workspace` (default ws_1) with the permissions (default api.*.read_api). */
  rootKey(permissions?: string[], workspace?: string): Promise<string>;
  revoke(key: string): Promise<void>;
  registerApi(apiId: string, workspace?: string): Promise<void>;
  /** Writes events through the ingest path (partsMinRows: as @va/ingest/testing seedEvents). */
  seed(events: readonly VerificationEvent[], options?: { partsMinRows?: number }): Promise<void>;
  /** GET path (with query string) with Authorization: Bearer <key> when a key is given. */
  get(path: string, key?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** The service's Prometheus metrics, as its internal port serves them (main.ts). */
  metrics(): Promise<string>;
  /** Listens on a free port of 127.0.0.1 (once) and returns the service's base URL. */
  baseUrl(): Promise<string>;
  /** The typed client (@va/client) over real HTTP to this server, with the token. */
  client(token: string, options?: Partial<ClientOptions>): Promise<AnalyticsClient>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  now?: number;
  env?: Record<string, string>;
}

export async function queryHarness(name: string, options: HarnessOptions = {}): Promise<QueryHarness> {
  const prefix = `t-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}-${Math.random().toString(36).slice(2, 8)}`;
  const config = loadConfig({
    REDIS_URL: inject('redisUrl'),
    REDIS_KEY_PREFIX: prefix,
    // Tests send queries as fast as they can with one root key; the rate limit has tests of its own.
    QUERY_RATE_LIMIT: '0',
    // Revocations take effect at once: the auth cache's delay has tests of its own (auth/revocation.int.test.ts).
    QUERY_AUTH_CACHE_MS: '0',
    // Answer on the main thread unless a test asks for workers (each would open a connection).
    QUERY_WORKERS: '0',
    QUERY_TIMEOUT_MS: String(ANSWER_BUDGET_MS),
    ...options.env,
  });
  const now = options.now ?? Date.now();
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2 });
  await redis.ping();
  const registry = new Registry();
  const app = await createServer({ redis, config, registry, now: () => now });
  await app.ready();
  let listening: Promise<string> | undefined;
  const baseUrl = () => (listening ??= app.listen({ port: 0, host: '127.0.0.1' }));
  return {
    app,
    redis,
    config,
    now,
    async rootKey(permissions = ['api.*.read_api'], workspace = 'ws_1') {
      return (await createRootKey(redis, prefix, { workspaceId: workspace, permissions, now })).key;
    },
    async revoke(key) {
      await revokeRootKey(redis, prefix, key, now);
    },
    async registerApi(apiId, workspace = 'ws_1') {
      const result = await registerApi(redis, prefix, apiId, workspace);
      if (!result.ok) throw new Error(`${apiId} belongs to another workspace`);
    },
    seed: (events, options = {}) =>
      seedEvents(redis, events, { prefix, now, retention: config.retention, ...options }),
    get: (path, key, headers = {}) =>
      app.inject({
        method: 'GET',
        url: path,
        headers: key === undefined ? headers : { authorization: `Bearer ${key}`, ...headers },
      }),
    metrics: () => registry.metrics(),
    baseUrl,
    async client(token, options = {}) {
      return createClient({ baseUrl: await baseUrl(), token, ...options });
    },
    async close() {
      await app.close();
      await deletePrefix(config.redisUrl, prefix);
      redis.disconnect();
    },
  };
}
