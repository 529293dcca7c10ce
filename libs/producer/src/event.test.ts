import { describe, expect, it } from 'vitest';
import { buildEvent, InvalidEventError } from './event';
import { messageKey } from './key';

const base = { workspaceId: 'ws_1', apiId: 'api_1', keyId: 'key_1', outcome: 'VALID' as const };

describe('buildEvent', () => {
  it('fills requestId and time and keeps what is given', () => {
    const event = buildEvent({ ...base, tags: ['a'] }, () => 1_700_000_000_000);
    expect(event).toMatchObject({ ...base, tags: ['a'], time: 1_700_000_000_000 });
    expect(event.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(buildEvent({ ...base, requestId: 'r1', time: new Date(5) })).toMatchObject({
      requestId: 'r1',
      time: 5,
    });
  });

  it('refuses what the event schema refuses, naming every problem', () => {
    const bad = () =>
      buildEvent({ ...base, outcome: 'MAYBE' as 'VALID', tags: Array.from({ length: 21 }, () => 'x') });
    expect(bad).toThrow(InvalidEventError);
    try {
      bad();
    } catch (error) {
      const paths = (error as InvalidEventError).problems.map((p) => p.path);
      expect(paths).toContain('/outcome');
      expect(paths).toContain('/tags');
    }
    expect(() => buildEvent({ ...base, apiId: 'has space' })).toThrow(/\/apiId/);
  });
});

describe('messageKey', () => {
  it('is the apiId by default, apiId/keyId when spreading an API over partitions', () => {
    expect(messageKey({ apiId: 'a', keyId: 'k' }, 'apiId')).toBe('a');
    expect(messageKey({ apiId: 'a', keyId: 'k' }, 'apiId+keyId')).toBe('a/k');
  });
});
