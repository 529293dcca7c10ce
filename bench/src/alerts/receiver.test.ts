import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type WebhookReceiver } from './receiver';

let receiver: WebhookReceiver | undefined;
afterEach(() => receiver?.close());

const post = (id: string | undefined, data: unknown) =>
  fetch(receiver!.url, {
    method: 'POST',
    headers: id === undefined ? {} : { 'webhook-id': id },
    body: JSON.stringify({ type: 'alert.threshold_crossed', timestamp: '', data }),
  });

describe('startReceiver', () => {
  it("notes each webhook-id's first arrival with its detectedAt, and counts repeats and malformed ones", async () => {
    receiver = await startReceiver();
    for (const [id, data] of [
      ['a', { alertId: 'a', detectedAt: 1_000 }],
      ['a', { alertId: 'a', detectedAt: 1_000 }],
      ['b', { alertId: 'c', detectedAt: 2_000 }],
      [undefined, { alertId: 'd' }],
    ] as const)
      expect((await post(id, data)).status).toBe(204);
    expect([...receiver.arrivals.keys()]).toEqual(['a']);
    expect(receiver.detected).toEqual(new Map([['a', 1_000]]));
    expect(receiver).toMatchObject({ repeats: 1, malformed: 2 });
    expect(receiver.lastAt).toBeGreaterThanOrEqual(receiver.arrivals.get('a')!);
  });
});
