/**
 * Live updates end to end (docs/api.md#stream): the real ingest worker and query service as processes,
 * Kafka and Redis. An event produced to Kafka while a stream is open reaches the stream as a new answer
 * (the worker's change signal after its commit wakes the query service's read); SIGTERM to the query
 * service ends the stream cleanly (the process exits 0, the client's stream ends).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { startStack, type Stack } from './stack';

let stack: Stack;
let key: string;
let n = 0;

const event = (apiId: string): VerificationEvent => ({
  requestId: `live-${n++}`,
  time: Date.now() - 1_000,
  workspaceId: 'ws_1',
  apiId,
  keyId: 'key_1',
  outcome: 'VALID',
});

beforeAll(async () => {
  // No periodic re-read: an update can only come from the change signal.
  stack = await startStack('stream', { QUERY_STREAM_REFRESH_MS: '3600000' });
  await stack.registerApi('api_live', 'ws_1');
  key = await stack.rootKey();
}, 180_000);
afterAll(() => stack?.stop());

describe('a stream over the whole stack', () => {
  it('receives the answer of an event produced while it is open, then ends on SIGTERM', async () => {
    await stack.produce([event('api_live')]);
    await stack.waitForTotal('api_live', 1, key);
    const answers = stack.client(key).streamVerifications({ apiId: 'api_live' }, { reconnect: false });
    const first = await answers.next();
    expect(first.value?.datapoints[0]?.total).toBe(1);
    await stack.produce([event('api_live'), event('api_live')]);
    let latest = first.value!;
    while (latest.datapoints[0]!.total < 3) {
      const next = await answers.next();
      expect(next.done).toBe(false);
      latest = next.value!;
    }
    expect(latest.datapoints[0]!.total).toBe(3);
    expect(await stack.query.kill('SIGTERM')).toBe(0);
    expect((await answers.next()).done).toBe(true);
  }, 120_000);
});
