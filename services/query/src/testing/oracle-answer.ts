/**
 * A query's answer from the service and from the oracle (@va/core) over the events written, for the tests that hold
 * one to the other at a fixed clock (the harness's `now`).
 */
import { expect } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { oracle, parseQuery } from '@va/core';
import type { QueryHarness } from './harness';

const PATH = '/v1/analytics.getVerifications';

/**
 * Asks `qs` (a full query string) with `key` and expects a 200 whose rows equal the oracle's over `events` with the
 * service's retention (its minute retention too); `label` names the step in a failure. Returns the response.
 */
export async function expectOracleAnswer(
  h: QueryHarness,
  key: string,
  events: readonly VerificationEvent[],
  qs: string,
  label: number | string,
): Promise<{ json: () => unknown; headers: Record<string, unknown> }> {
  const minuteRetentionMs = h.config.retention.minuteMs;
  const parsed = parseQuery(new URLSearchParams(qs), {
    now: h.now,
    maxRows: 100_000,
    ...(minuteRetentionMs !== undefined && { minuteRetentionMs }),
  });
  if (!parsed.ok) throw new Error(`invalid query ${qs}: ${JSON.stringify(parsed.errors)}`);
  const expected = oracle(events, parsed.query, {
    now: h.now,
    maxRows: 100_000,
    retention: h.config.retention,
  });
  if (!expected.ok) throw new Error(`oracle refused ${qs}`);
  const response = await h.get(`${PATH}?${qs}`, key);
  expect(response.statusCode, response.body).toBe(200);
  expect([label, qs, response.json()]).toEqual([label, qs, expected.rows]);
  return response;
}
