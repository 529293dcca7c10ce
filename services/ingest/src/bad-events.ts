/**
 * A catalogue of malformed events, one per way producers get it wrong, with the DLQ reason
 * each must get. Shared by the decode unit test and the DLQ integration test.
 */
import type { DlqReason } from './reasons';

export interface BadEvent {
  name: string;
  value: Buffer | null;
  reason: DlqReason;
}

/** A valid event at `time` to start from. */
export function goodEvent(time: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    requestId: 'req-1',
    time,
    workspaceId: 'ws_bad',
    apiId: 'api_bad',
    keyId: 'key_1',
    outcome: 'VALID',
    identity: { id: 'id_1', externalId: 'ext 1' },
    tags: ['a', 'b'],
    region: 'eu-west-1',
    ...overrides,
  };
}

const json = (v: unknown) => Buffer.from(JSON.stringify(v));

export function badEvents(now: number, apiId = 'api_bad'): BadEvent[] {
  const base = (o: Record<string, unknown> = {}) => goodEvent(now, { apiId, ...o });
  const without = (field: string) => {
    const e = base();
    delete e[field];
    return e;
  };
  return [
    { name: 'empty value', value: Buffer.alloc(0), reason: 'not_json' },
    { name: 'null value (tombstone)', value: null, reason: 'not_json' },
    { name: 'not JSON', value: Buffer.from('{"requestId": "x", time: 1'), reason: 'not_json' },
    { name: 'binary garbage', value: Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x02]), reason: 'not_json' },
    { name: 'JSON array', value: json([base()]), reason: 'schema' },
    { name: 'JSON string', value: json('VALID'), reason: 'schema' },
    { name: 'JSON null', value: Buffer.from('null'), reason: 'schema' },
    { name: 'JSON number', value: Buffer.from('42'), reason: 'schema' },
    { name: 'time as string', value: json(base({ time: String(now) })), reason: 'schema' },
    { name: 'fractional time', value: json(base({ time: now + 0.5 })), reason: 'schema' },
    { name: 'missing keyId', value: json(without('keyId')), reason: 'schema' },
    { name: 'missing requestId', value: json(without('requestId')), reason: 'schema' },
    { name: 'missing apiId', value: json(without('apiId')), reason: 'schema' },
    { name: 'missing time', value: json(without('time')), reason: 'schema' },
    { name: 'unknown outcome', value: json(base({ outcome: 'MAYBE' })), reason: 'unknown_outcome' },
    { name: 'lowercase outcome', value: json(base({ outcome: 'valid' })), reason: 'unknown_outcome' },
    { name: 'outcome as number', value: json(base({ outcome: 0 })), reason: 'schema' },
    { name: 'keyId with a space', value: json(base({ keyId: 'key 1' })), reason: 'schema' },
    { name: 'keyId with braces', value: json(base({ keyId: 'k{x}' })), reason: 'schema' },
    { name: 'empty keyId', value: json(base({ keyId: '' })), reason: 'schema' },
    {
      name: 'control char in externalId',
      value: json(base({ identity: { id: 'i', externalId: 'a\u0007b' } })),
      reason: 'invalid_text',
    },
    {
      name: 'newline in externalId',
      value: json(base({ identity: { id: 'i', externalId: 'a\nb' } })),
      reason: 'invalid_text',
    },
    {
      name: 'lone surrogate in externalId',
      value: json(base({ identity: { id: 'i', externalId: 'a\ud800b' } })),
      reason: 'invalid_text',
    },
    {
      name: 'C1 control in externalId',
      value: json(base({ identity: { id: 'i', externalId: 'a\u0085b' } })),
      reason: 'invalid_text',
    },
    {
      name: 'lone high surrogate in a tag',
      value: json(base({ tags: ['ok', 'x\udbff'] })),
      reason: 'invalid_text',
    },
    { name: 'lone low surrogate in a tag', value: json(base({ tags: ['\udc00x'] })), reason: 'invalid_text' },
    {
      name: 'bidi override in a tag',
      value: json(base({ tags: ['invoice\u202Efdp'] })),
      reason: 'invalid_text',
    },
    { name: 'bidi isolate in a tag', value: json(base({ tags: ['\u2066a\u2069'] })), reason: 'invalid_text' },
    { name: 'line separator in a tag', value: json(base({ tags: ['a\u2028b'] })), reason: 'invalid_text' },
    { name: 'identity without externalId', value: json(base({ identity: { id: 'i' } })), reason: 'schema' },
    { name: 'identity as string', value: json(base({ identity: 'i' })), reason: 'schema' },
    { name: 'comma in a tag', value: json(base({ tags: ['a,b'] })), reason: 'schema' },
    { name: 'control char in a tag', value: json(base({ tags: ['a\tb'] })), reason: 'invalid_text' },
    { name: 'empty tag', value: json(base({ tags: [''] })), reason: 'schema' },
    { name: 'tag of 129 chars', value: json(base({ tags: ['t'.repeat(129)] })), reason: 'schema' },
    { name: 'tags not an array', value: json(base({ tags: 'a' })), reason: 'schema' },
    {
      name: '21 tags',
      value: json(base({ tags: Array.from({ length: 21 }, (_, n) => `t${n}`) })),
      reason: 'too_many_tags',
    },
    { name: 'huge requestId', value: json(base({ requestId: 'r'.repeat(256) })), reason: 'schema' },
    { name: 'huge keyId', value: json(base({ keyId: 'k'.repeat(10_000) })), reason: 'schema' },
    { name: 'huge message', value: json(base({ region: 'x'.repeat(70_000) })), reason: 'too_large' },
    { name: 'time 6 minutes ahead', value: json(base({ time: now + 6 * 60_000 })), reason: 'future_time' },
    { name: 'time in year 9999', value: json(base({ time: 253402300799999 })), reason: 'future_time' },
    { name: 'time 6 years ago', value: json(base({ time: now - 6 * 366 * 86_400_000 })), reason: 'expired' },
    { name: 'negative time', value: json(base({ time: -1 })), reason: 'expired' },
    {
      name: 'workspace mismatch',
      value: json(base({ workspaceId: 'ws_intruder' })),
      reason: 'workspace_mismatch',
    },
  ];
}
