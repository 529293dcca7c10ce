import { Command } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { apiKeys } from './keys';
import { slotOf } from './pipeline';

const slot = (key: string) => new Command('get', [key]).getSlot();
const keys = apiKeys({ prefix: 'va', generation: 1 }, 'api_main');

describe('slotOf (how a cluster pipeline groups its commands)', () => {
  it('finds the slot of built-in commands, call(), and both kinds of Lua command', () => {
    const expected = slot('{api_main}');
    expect(slot(keys.offsets)).toBe(expected);
    expect(slotOf({ name: 'hgetall', args: [keys.offsets] })).toBe(expected);
    expect(slotOf({ name: 'call', args: ['SET', 'va:api:api_main', 'ws', 'NX', 'GET'] })).toBe(
      slot('va:api:api_main'),
    );
    // Fixed key count (retireApiGeneration-1.lua): the first argument is its key.
    expect(slotOf({ name: 'retireApiGeneration', args: [[keys.offsets, 2, 'live/0', 5]] })).toBe(expected);
    // Variable key count (applyApiBatch.lua): numkeys first.
    expect(slotOf({ name: 'applyApiBatch', args: [[2, keys.offsets, keys.compactedThrough, 'x']] })).toBe(
      expected,
    );
    expect(slotOf({ name: 'ping', args: [] })).toBe(-1);
  });
});
