// Webhook delivery of usage alerts with real parts (docs/alerts.md "Delivery"): a rule and an endpoint are
// made through the API (@va/client against the query service), a crossing is written into the API's stream
// with the store's codec, the delivery (fan-out + BullMQ worker) sends it to a real HTTP receiver, and the
// receiver verifies the signature with the standardwebhooks package. The receiver answers 500 first: a
// retry follows with the same webhook-id; a repeated stream entry queues nothing new; a redirect is not
// followed; the delivery log shows each attempt; a replay sends the same webhook-id again.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type AnalyticsClient } from '@va/client';
import type { AlertWebhookPayload } from '@va/contracts';
import { loadConfig } from '@va/config';
import { alertPeriodStart } from '@va/core';
import { createServer } from '@va/query';
import { createLogger } from '@va/runtime';
import {
  alertGlobalKeys,
  alertKeys,
  appendCrossing,
  createRootKey,
  CROSSINGS_GROUP,
  globalKeys,
  registerApi,
  type CrossingFields,
  type RedisClient,
} from '@va/store';
import { connectTarget, deletePrefix } from '@va/store/testing';
import { testEnv, waitFor, type TestEnv } from '@va/testkit/support';
import { createAlertDelivery, type AlertDelivery } from './delivery';
import { DELIVERY_QUEUE } from './jobs';
import { replayAlerts } from './replay';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A webhook receiver on 127.0.0.1: records every request, answers the statuses queued, then 200. */
async function receiver(answers: number[] = [], location?: string) {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers as Record<string, string>, body });
      const status = answers.shift() ?? 200;
      response.writeHead(status, location ? { location } : {}).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let t: TestEnv;
let redis: RedisClient;
let client: AnalyticsClient;
let delivery: AlertDelivery;
const closers: (() => Promise<void>)[] = [];
const now = Date.now();

beforeAll(async () => {
  t = await testEnv('alert delivery');
  redis = connectTarget(t.redis);
  const config = loadConfig({
    ...t.env,
    QUERY_WORKERS: '0',
    QUERY_AUTH_CACHE_MS: '0',
    QUERY_RATE_LIMIT: '0',
    ALERTS_ALLOW_PRIVATE_URLS: 'on', // the receivers listen on 127.0.0.1
    ALERTS_POLL_MS: '100',
  });
  const app = await createServer({ redis, config });
  closers.push(() => app.close());
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  await registerApi(redis, t.keyPrefix, 'api_1', 'ws_1');
  const { key } = await createRootKey(redis, t.keyPrefix, {
    workspaceId: 'ws_1',
    permissions: ['api.*.manage_alerts'],
    now,
  });
  client = createClient({ baseUrl, token: key });
  delivery = createAlertDelivery({
    config,
    logger: createLogger('alerts-test', 'warn'),
    now: () => Date.now(),
    backoff: { baseMs: 200, capMs: 1_000 }, // the schedule's shape, with short waits
    claimIdleMs: 500,
  });
  await delivery.start();
  closers.push(() => delivery.stop());
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await deletePrefix(t.redis, t.keyPrefix);
  redis.disconnect();
});

const crossingOf = (ruleId: string, member: string, level: number): CrossingFields => ({
  ruleId,
  member,
  period: 'month',
  periodStart: alertPeriodStart('month', now),
  level,
  count: level + 2,
  detectedAt: now,
});

/** Every entry of the API's crossings stream read and acknowledged by the delivery's group. */
async function streamDrained(): Promise<boolean> {
  const groups = (await redis.xinfo('GROUPS', alertKeys(t.keyPrefix, 'api_1').crossings)) as unknown[][];
  const group = groups.map((g) => Object.fromEntries(chunks(g))).find((g) => g.name === CROSSINGS_GROUP);
  const [last] = await redis.xrevrange(alertKeys(t.keyPrefix, 'api_1').crossings, '+', '-', 'COUNT', 1);
  return group?.['last-delivered-id'] === last?.[0] && group?.pending === 0;
}
const chunks = (flat: unknown[]) => flat.flatMap((v, i) => (i % 2 === 0 ? [[v, flat[i + 1]]] : []));

describe('alert delivery', () => {
  it('delivers a crossing signed, retries after a 500 with the same id, and logs both attempts', async () => {
    const hook = await receiver([500]);
    closers.push(hook.close);
    const rule = await client.createAlertRule({
      apiId: 'api_1',
      scope: { kind: 'eachIdentity' },
      period: 'month',
      levels: [10, 100],
    });
    const endpoint = await client.createAlertEndpoint({ url: hook.url, ruleIds: [rule.ruleId] });
    const fields = crossingOf(rule.ruleId, 'acme', 10);
    await appendCrossing(redis, t.keyPrefix, 'api_1', fields);
    await waitFor(() => hook.received.length >= 2, { timeoutMs: 30_000, message: 'a retry after the 500' });

    const ids = hook.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    const payload = new Webhook(endpoint.secret).verify(hook.received[1]!.body, hook.received[1]!.headers);
    const { data } = payload as AlertWebhookPayload;
    expect(data).toMatchObject({ ...fields, apiId: 'api_1', alertId: ids[0] });
    expect(() =>
      new Webhook(endpoint.secret).verify(hook.received[0]!.body, hook.received[0]!.headers),
    ).not.toThrow();

    const log = await waitFor(
      async () => {
        const { deliveries } = await client.listAlertDeliveries({ apiId: 'api_1', alertId: data.alertId });
        return deliveries.length >= 2 ? deliveries : undefined;
      },
      { message: 'two log entries' },
    );
    expect(log.map((d) => [d.attempt, d.outcome, d.status])).toEqual([
      [2, 'delivered', 200],
      [1, 'failed', 500],
    ]);
    expect(log.every((d) => d.endpointId === endpoint.endpointId)).toBe(true);

    // The same crossing appended again (a rebuild detects it again): read, and no second job.
    await appendCrossing(redis, t.keyPrefix, 'api_1', fields);
    await waitFor(streamDrained, { message: 'the repeated entry read and acknowledged' });
    // Had it queued a job, that job would be waiting or running now, or done and received.
    const queue = new Queue(DELIVERY_QUEUE, { connection: redis, prefix: globalKeys(t.keyPrefix).bull });
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed');
    await queue.close();
    expect(counts).toMatchObject({ waiting: 0, active: 0, delayed: 0, completed: 1 });
    expect(hook.received).toHaveLength(2);

    // A replay sends it again, with the same webhook-id and a valid signature.
    expect(
      await replayAlerts(redis, t.keyPrefix, { apiId: 'api_1', alertId: data.alertId }, Date.now()),
    ).toEqual({
      crossings: 1,
      queued: 1,
    });
    await waitFor(() => hook.received.length >= 3, { message: 'the replayed webhook' });
    expect(hook.received[2]!.headers['webhook-id']).toBe(data.alertId);
    expect(new Webhook(endpoint.secret).verify(hook.received[2]!.body, hook.received[2]!.headers)).toEqual(
      payload,
    );
    const { deliveries } = await client.listAlertDeliveries({
      apiId: 'api_1',
      alertId: data.alertId,
      limit: 1,
    });
    expect(deliveries[0]).toMatchObject({ outcome: 'delivered', replay: true });
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const target = await receiver();
    const redirecting = await receiver([302, 302, 302], target.url);
    closers.push(target.close, redirecting.close);
    const rule = await client.createAlertRule({
      apiId: 'api_1',
      scope: { kind: 'api' },
      period: 'day',
      levels: [5],
    });
    await client.createAlertEndpoint({ url: redirecting.url, ruleIds: [rule.ruleId] });
    await appendCrossing(redis, t.keyPrefix, 'api_1', { ...crossingOf(rule.ruleId, '', 5), period: 'day' });
    await waitFor(() => redirecting.received.length >= 2, { message: 'two attempts at the redirecting URL' });
    const alertId = redirecting.received[0]!.headers['webhook-id']!;
    const { deliveries } = await client.listAlertDeliveries({ apiId: 'api_1', alertId });
    expect(deliveries.at(-1)).toMatchObject({ attempt: 1, outcome: 'failed', status: 302 });
    expect(deliveries.at(-1)!.error).toMatch(/redirect/);
    expect(target.received).toHaveLength(0);
  });

  it('takes over the crossings of a reader that died before acknowledging them', async () => {
    const hook = await receiver();
    closers.push(hook.close);
    await registerApi(redis, t.keyPrefix, 'api_2', 'ws_1');
    const key = alertKeys(t.keyPrefix, 'api_2').crossings;
    await redis.xgroup('CREATE', key, CROSSINGS_GROUP, '0', 'MKSTREAM');
    const fields = crossingOf(`rule_${'9'.repeat(24)}`, 'key_1', 7);
    await appendCrossing(redis, t.keyPrefix, 'api_2', fields);
    // A reader takes the entry and dies: it is pending, and no other reader gets it as new.
    const taken = (await redis.xreadgroup(
      'GROUP',
      CROSSINGS_GROUP,
      'dead',
      'STREAMS',
      key,
      '>',
    )) as unknown[];
    expect(taken).toHaveLength(1);
    await client.createAlertEndpoint({ url: hook.url }); // every rule of the workspace
    await redis.sadd(alertGlobalKeys(t.keyPrefix).apis, 'api_2'); // as creating a rule of api_2 would
    await waitFor(() => hook.received.length >= 1, { message: "the dead reader's crossing delivered" });
    const { data } = JSON.parse(hook.received[0]!.body) as AlertWebhookPayload;
    expect(data).toMatchObject({ ...fields, apiId: 'api_2' });
  });
});
