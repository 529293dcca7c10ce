/**
 * The contract's vectors through the whole stack: the vector events go through Kafka and the
 * real ingest worker, with the service clock fixed at the vectors' `now` (FIXED_NOW_MS) and
 * retention long enough to keep their old times at hour precision; then every case (and every
 * invalid case) is asked over HTTP from the real query service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope } from '@va/contracts';
import { loadVectors } from '@va/testkit';
import { startStack, type Stack } from './stack';

const vectors = loadVectors();
let stack: Stack;
let key: string;

beforeAll(async () => {
  stack = await startStack('e2e vectors', {
    FIXED_NOW_MS: String(vectors.now),
    // Long enough for the vectors' times also against the real clock (Redis expires keys by PEXPIREAT).
    RETENTION_HOURS_DAYS: '36500',
    RETENTION_DAYS_DAYS: '36500',
    RETENTION_MONTHS_DAYS: '36500',
  });
  key = await stack.rootKey();
  for (const { apiId, workspaceId } of vectors.registeredApis) await stack.registerApi(apiId, workspaceId);
  await stack.produce(vectors.events);
  const perApi = new Map<string, number>();
  for (const e of vectors.events) perApi.set(e.apiId, (perApi.get(e.apiId) ?? 0) + 1);
  for (const [apiId, total] of perApi) await stack.waitForTotal(apiId, total, key);
});
afterAll(() => stack?.stop());

describe('vector cases over HTTP', () => {
  it.each(vectors.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const response = await stack.get(c.query, key);
    expect(response.status).toBe(c.status);
    expect(response.body).toEqual(c.body);
    expect(response.headers.get('x-precision') ?? undefined).toBe(c.headers?.['x-precision']);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it.each(vectors.invalid.map((c) => [c.name, c] as const))('invalid: %s', async (_name, c) => {
    const response = await stack.get(c.query, key);
    expect(response.status).toBe(c.status);
    const body = response.body as ErrorEnvelope;
    expect(body.error.type.endsWith(`/${c.type}`)).toBe(true);
    expect(body.error.errors.some((e) => c.anyLocationOf.includes(e.location))).toBe(true);
    expect(body.meta.requestId).toBe(response.headers.get('x-request-id'));
  });
});
