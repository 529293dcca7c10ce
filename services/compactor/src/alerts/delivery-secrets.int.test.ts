// No secret leaves the endpoint record (docs/alerts.md "Secrets"): a delivery that fails once and then
// succeeds, logged at the most verbose level, leaves neither the endpoint's secret nor a signature in its
// log lines, nor the secret in BullMQ's keys (job data names the endpoint; the secret is read per attempt).
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '@va/config';
import {
  appendCrossing,
  createAlertEndpoint,
  createAlertRule,
  globalKeys,
  newWebhookSecret,
  registerApi,
  type RedisClient,
} from '@va/store';
import { connectTarget, deletePrefix, keysMatching } from '@va/store/testing';
import { testEnv, waitFor, type TestEnv } from '@va/testkit/support';
import { createAlertDelivery } from './delivery';

let t: TestEnv;
let redis: RedisClient;
let server: http.Server;
const signatures: string[] = [];
const answers = [500];

beforeAll(async () => {
  t = await testEnv('alert secrets');
  redis = connectTarget(t.redis);
  server = http.createServer((request, response) => {
    signatures.push(String(request.headers['webhook-signature']));
    request.resume();
    request.on('end', () => response.writeHead(answers.shift() ?? 200).end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await deletePrefix(t.redis, t.keyPrefix);
  redis.disconnect();
});

it('logs attempts without the secret or a signature, and keeps the secret out of the job queue', async () => {
  let logged = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  const config = loadConfig({ ...t.env, ALERTS_ALLOW_PRIVATE_URLS: 'on', ALERTS_POLL_MS: '100' });
  const delivery = createAlertDelivery({
    config,
    logger: pino({ level: 'trace' }, sink),
    now: () => Date.now(),
    backoff: { baseMs: 100, capMs: 100 },
  });
  const secret = newWebhookSecret();
  const ruleId = `rule_${'1'.repeat(24)}`;
  await registerApi(redis, t.keyPrefix, 'api_s', 'ws_s');
  await createAlertRule(redis, t.keyPrefix, {
    ruleId,
    apiId: 'api_s',
    scope: { kind: 'api' },
    period: 'day',
    levels: [1],
    createdAt: 0,
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  await createAlertEndpoint(redis, t.keyPrefix, 'ws_s', {
    endpointId: `ep_${'2'.repeat(24)}`,
    url,
    createdAt: 0,
    secret,
  });
  await delivery.start();
  try {
    await appendCrossing(redis, t.keyPrefix, 'api_s', {
      ruleId,
      member: '',
      period: 'day',
      periodStart: 0,
      level: 1,
      count: 1,
      detectedAt: Date.now(),
    });
    await waitFor(() => signatures.length >= 2, { message: 'a failed attempt and a delivered one' });
    await waitFor(() => (logged.match(/webhook attempt/g) ?? []).length >= 2, {
      message: 'both attempts logged',
    });
  } finally {
    await delivery.stop();
  }
  const secretBody = secret.slice('whsec_'.length);
  expect(logged).toContain('"outcome":"failed"');
  expect(logged).not.toContain(secretBody);
  for (const signature of signatures) expect(logged).not.toContain(signature.slice('v1,'.length));
  const bullKeys = await keysMatching(redis, `${globalKeys(t.keyPrefix).bull}:alert-delivery:*`);
  expect(bullKeys.length).toBeGreaterThan(0);
  for (const key of bullKeys) {
    if ((await redis.type(key)) !== 'hash') continue;
    expect(JSON.stringify(await redis.hgetall(key)), key).not.toContain(secretBody);
  }
});
