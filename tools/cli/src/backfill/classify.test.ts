import { describe, expect, it } from 'vitest';
import { decodeContext } from '@va/ingest';
import { classify } from './classify';

const now = Date.UTC(2026, 10, 22, 12);
const ctx = decodeContext(now, {
  hourMs: 35 * 86_400_000,
  dayMs: 400 * 86_400_000,
  monthMs: 1830 * 86_400_000,
});
const record = (value: string | null) => ({
  topic: 'file:events.ndjson',
  partition: -1,
  offset: '7',
  key: null,
  value: value === null ? null : Buffer.from(value),
  headers: undefined,
});
const event = {
  requestId: 'r1',
  time: now - 3_600_000,
  workspaceId: 'ws_1',
  apiId: 'api_1',
  keyId: 'key_1',
  outcome: 'VALID',
};

describe('classify', () => {
  it('keys a valid event by its apiId and keeps its bytes', () => {
    const raw = JSON.stringify(event);
    const c = classify(record(raw), ctx);
    expect(c.ok).toBe(true);
    expect(c.message.key).toBe('api_1');
    expect(String(c.message.value)).toBe(raw);
  });

  it('keys it by apiId/keyId with the apiId+keyId key', () => {
    const c = classify(record(JSON.stringify(event)), ctx, 'apiId+keyId');
    expect(c.message.key).toBe('api_1/key_1');
  });

  it("dead-letters what the worker refuses, in the worker's format", () => {
    const cases: [string, string][] = [
      ['{not json', 'not_json'],
      [JSON.stringify({ ...event, outcome: 'MAYBE' }), 'unknown_outcome'],
      [JSON.stringify({ ...event, time: now + 3_600_000 }), 'future_time'],
      [JSON.stringify({ ...event, time: Date.UTC(2015, 0, 1) }), 'expired'],
      [JSON.stringify({ ...event, keyId: undefined }), 'schema'],
    ];
    for (const [value, reason] of cases) {
      const c = classify(record(value), ctx);
      expect(c.ok).toBe(false);
      if (c.ok) continue;
      expect(c.reason).toBe(reason);
      const headers = c.message.headers!;
      expect(String(headers['x-dlq-reason'])).toBe(reason);
      expect(String(headers['x-original-topic'])).toBe('file:events.ndjson');
      expect(String(headers['x-original-offset'])).toBe('7');
      expect(String(c.message.value)).toBe(value);
    }
  });
});
