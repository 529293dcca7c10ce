// The /v1/alerts.* routes on a real Redis (docs/alerts.md, docs/api.md#alerts): rules and endpoints are
// created, listed and deleted; checks answer in the order 401, 400, 403, 404; an endpoint's secret is
// answered once; the delivery log is read newest first and by alert id; a rule keeps the zone it was
// created in (its own, else the API's default then).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertRule, CreatedAlertEndpoint, DeliveryAttempt } from '@va/contracts';
import { appendDeliveryAttempt, setApiTimeZone } from '@va/store';
import { queryHarness, type QueryHarness } from '../testing/harness';

let h: QueryHarness;
let admin: string; // api.*.manage_alerts
let apiOnly: string; // api.api_a.manage_alerts
let reader: string; // api.*.read_api

beforeAll(async () => {
  h = await queryHarness('alerts routes');
  await h.registerApi('api_a');
  await h.registerApi('api_b');
  await h.registerApi('api_other', 'ws_2');
  admin = await h.rootKey(['api.*.manage_alerts']);
  apiOnly = await h.rootKey(['api.api_a.manage_alerts']);
  reader = await h.rootKey(['api.*.read_api']);
});
afterAll(() => h.close());

const post = (path: string, body: unknown, key?: string) =>
  h.app.inject({
    method: 'POST',
    url: path,
    headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    payload: body as object,
  });

const rule = { apiId: 'api_a', scope: { kind: 'eachIdentity' }, period: 'month', levels: [100, 10, 1000] };

describe('alert rules', () => {
  it('creates (levels sorted), lists and deletes a rule', async () => {
    const created = await post('/v1/alerts.createRule', { ...rule, outcomes: ['VALID'] }, apiOnly);
    expect(created.statusCode).toBe(200);
    const body = created.json<AlertRule>();
    expect(body).toMatchObject({
      apiId: 'api_a',
      levels: [10, 100, 1000],
      outcomes: ['VALID'],
      createdAt: h.now,
    });
    expect(body.ruleId).toMatch(/^rule_[0-9a-f]{24}$/);
    const listed = await h.get('/v1/alerts.listRules?apiId=api_a', admin);
    expect(listed.json()).toEqual({ rules: [body] });
    expect(
      (await post('/v1/alerts.deleteRule', { apiId: 'api_a', ruleId: body.ruleId }, admin)).json(),
    ).toEqual({
      deleted: true,
    });
    expect((await h.get('/v1/alerts.listRules?apiId=api_a', admin)).json()).toEqual({ rules: [] });
    const again = await post('/v1/alerts.deleteRule', { apiId: 'api_a', ruleId: body.ruleId }, admin);
    expect(again.statusCode).toBe(404);
  });

  it("keeps the zone given, else the API's default zone at its creation; an unknown zone is 400", async () => {
    const zoneOf = async (body: object) => {
      const created = await post('/v1/alerts.createRule', { ...rule, ...body }, admin);
      expect(created.statusCode, created.body).toBe(200);
      return created.json<AlertRule>().timeZone;
    };
    expect(await zoneOf({})).toBe('UTC');
    expect(await zoneOf({ timeZone: 'america/new_york' })).toBe('America/New_York');
    await setApiTimeZone(h.redis, h.config.keyPrefix, 'api_a', 'Asia/Kolkata');
    expect(await zoneOf({ period: 'day' })).toBe('Asia/Kolkata');
    expect(await zoneOf({ timeZone: 'UTC' })).toBe('UTC');
    await setApiTimeZone(h.redis, h.config.keyPrefix, 'api_a', 'UTC');
    const rules = (await h.get('/v1/alerts.listRules?apiId=api_a', admin)).json<{ rules: AlertRule[] }>()
      .rules;
    // The harness's clock stands still: the rules are listed by id, not in the order they were created.
    expect(rules.map((r) => r.timeZone).sort()).toEqual(['America/New_York', 'Asia/Kolkata', 'UTC', 'UTC']);
    // An unknown zone: 400 at body.timeZone, before the permission is looked at.
    for (const timeZone of ['Mars/Olympus', '+05:30', '']) {
      const refused = await post('/v1/alerts.createRule', { ...rule, timeZone }, reader);
      expect(refused.statusCode, timeZone).toBe(400);
      expect(refused.json().error.errors).toEqual([
        expect.objectContaining({
          location: 'body.timeZone',
          message: `timeZone must be an IANA time zone name; got ${JSON.stringify(timeZone)}`,
        }),
      ]);
    }
    for (const r of rules) await post('/v1/alerts.deleteRule', { apiId: 'api_a', ruleId: r.ruleId }, admin);
  });

  it('answers 401, then 400, then 403, then 404', async () => {
    expect((await post('/v1/alerts.createRule', rule)).statusCode).toBe(401);
    expect((await post('/v1/alerts.createRule', rule, 'vak_nope')).statusCode).toBe(401);
    // An invalid body is 400 even for a key that could not create the rule.
    const invalid = await post(
      '/v1/alerts.createRule',
      { ...rule, levels: [], scope: { kind: 'x' } },
      reader,
    );
    expect(invalid.statusCode).toBe(400);
    expect(
      invalid
        .json()
        .error.errors.map((e: { location: string }) => e.location)
        .sort(),
    ).toEqual(['body.levels', 'body.scope']);
    expect((await post('/v1/alerts.createRule', rule, reader)).statusCode).toBe(403);
    const otherApi = await post('/v1/alerts.createRule', { ...rule, apiId: 'api_b' }, apiOnly);
    expect(otherApi.statusCode).toBe(403);
    expect(otherApi.json().error.detail).toContain('api.api_b.manage_alerts');
    expect((await post('/v1/alerts.createRule', { ...rule, apiId: 'api_other' }, admin)).statusCode).toBe(
      404,
    );
    expect((await post('/v1/alerts.createRule', { ...rule, apiId: 'api_unknown' }, admin)).statusCode).toBe(
      404,
    );
    expect((await h.get('/v1/alerts.listRules', admin)).json().error.errors[0].location).toBe('query.apiId');
    expect((await h.get('/v1/alerts.listRules?apiId=api_a&x=1', admin)).statusCode).toBe(400);
    expect((await h.get('/v1/alerts.listRules?apiId=api_a&apiId=api_b', admin)).statusCode).toBe(400);
    expect((await h.get('/v1/alerts.listRules?apiId=api_b', apiOnly)).statusCode).toBe(403);
  });
});

describe('webhook endpoints', () => {
  it('answers the secret once and lists endpoints without it', async () => {
    const created = await post('/v1/alerts.createEndpoint', { url: 'https://hooks.example.com/a' }, admin);
    expect(created.statusCode).toBe(200);
    const endpoint = created.json<CreatedAlertEndpoint>();
    expect(endpoint.endpointId).toMatch(/^ep_[0-9a-f]{24}$/);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(endpoint.secret.slice(6), 'base64')).toHaveLength(24);
    const listed = await h.get('/v1/alerts.listEndpoints', admin);
    expect(listed.json()).toEqual({
      endpoints: [{ endpointId: endpoint.endpointId, url: endpoint.url, createdAt: h.now }],
    });
    expect(listed.body).not.toContain(endpoint.secret.slice(6));
    const deleted = await post('/v1/alerts.deleteEndpoint', { endpointId: endpoint.endpointId }, admin);
    expect(deleted.json()).toEqual({ deleted: true });
    expect(
      (await post('/v1/alerts.deleteEndpoint', { endpointId: endpoint.endpointId }, admin)).statusCode,
    ).toBe(404);
  });

  it('needs api.*.manage_alerts and an http(s) URL without credentials', async () => {
    const url = 'https://hooks.example.com/b';
    expect((await post('/v1/alerts.createEndpoint', { url }, apiOnly)).statusCode).toBe(403);
    expect((await h.get('/v1/alerts.listEndpoints', apiOnly)).statusCode).toBe(403);
    for (const bad of ['ftp://x.example', 'https://user:pw@x.example/', 'not a url']) {
      const answer = await post('/v1/alerts.createEndpoint', { url: bad }, admin);
      expect(answer.statusCode).toBe(400);
      expect(answer.json().error.errors[0].location).toBe('body.url');
    }
    expect((await post('/v1/alerts.createEndpoint', { url, ruleIds: ['nope'] }, admin)).statusCode).toBe(400);
    expect((await h.get('/v1/alerts.listEndpoints?x=1', admin)).statusCode).toBe(400);
  });
});

describe('delivery log', () => {
  it('lists attempts newest first, of one alert when asked', async () => {
    const attempt = (alertId: string, n: number): DeliveryAttempt => ({
      alertId,
      endpointId: 'ep_000000000000000000000001',
      attempt: n,
      outcome: n === 2 ? 'delivered' : 'failed',
      ...(n === 1 && { status: 500, error: 'HTTP 500' }),
      at: h.now + n,
      durationMs: 3,
    });
    const a = 'a'.repeat(24);
    const b = 'b'.repeat(24);
    for (const entry of [attempt(a, 1), attempt(b, 1), attempt(a, 2)]) {
      await appendDeliveryAttempt(h.redis, h.config.keyPrefix, 'api_a', entry);
    }
    const all = await h.get('/v1/alerts.listDeliveries?apiId=api_a', apiOnly);
    expect(all.json()).toEqual({ deliveries: [attempt(a, 2), attempt(b, 1), attempt(a, 1)] });
    const one = await h.get(`/v1/alerts.listDeliveries?apiId=api_a&alertId=${a}&limit=1`, apiOnly);
    expect(one.json()).toEqual({ deliveries: [attempt(a, 2)] });
    expect((await h.get('/v1/alerts.listDeliveries?apiId=api_a&limit=0', apiOnly)).statusCode).toBe(400);
    expect((await h.get('/v1/alerts.listDeliveries?apiId=api_b', apiOnly)).statusCode).toBe(403);
    expect((await h.get('/v1/alerts.listDeliveries?apiId=api_other', admin)).statusCode).toBe(404);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await h.get('/openapi.json')).json<{ paths: Record<string, unknown> }>();
    for (const path of [
      'createRule',
      'listRules',
      'deleteRule',
      'createEndpoint',
      'listEndpoints',
      'deleteEndpoint',
      'listDeliveries',
    ]) {
      expect(doc.paths).toHaveProperty([`/v1/alerts.${path}`]);
    }
  });
});
