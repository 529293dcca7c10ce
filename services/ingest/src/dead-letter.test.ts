import { describe, expect, it } from 'vitest';
import { deadLetterMessage } from './dead-letter';

describe('deadLetterMessage', () => {
  it('keeps key, value and headers, and says why and where from', () => {
    const value = Buffer.from([0xff, 0x00, 0x7b]);
    const m = deadLetterMessage({
      topic: 'key-verifications',
      partition: 3,
      offset: '1234',
      key: Buffer.from('api_1'),
      value,
      headers: { trace: 'abc' },
      reason: 'schema',
      detail: '/keyId: bad\nsecond line\u0000',
    });
    expect(m.key).toEqual(Buffer.from('api_1'));
    expect(m.value).toBe(value);
    expect(m.headers).toEqual({
      trace: 'abc',
      'x-dlq-reason': 'schema',
      'x-dlq-detail': '/keyId: bad second line ',
      'x-original-topic': 'key-verifications',
      'x-original-partition': '3',
      'x-original-offset': '1234',
    });
  });

  it('keeps tombstones and bounds the detail', () => {
    const m = deadLetterMessage({
      topic: 't',
      partition: 0,
      offset: '0',
      key: null,
      value: null,
      headers: undefined,
      reason: 'not_json',
      detail: 'x'.repeat(5000),
    });
    expect(m.value).toBeNull();
    expect(String(m.headers!['x-dlq-detail']).length).toBe(512);
  });
});
