import { describe, expect, it } from 'vitest';
import { apiKeys } from '@va/store';
import { familyOf } from './memory';

describe('familyOf', () => {
  const keys = apiKeys({ prefix: 'bench-x', generation: 3 }, 'api_medium');
  it.each([
    [keys.section('h', 498737, 'f'), 'section h:f'],
    [keys.section('m', 675, 'x'), 'section m:x'],
    [keys.cube('d', 20576, 'k:1f'), 'delta d:k'],
    [keys.cube('h', 498737, 't'), 'delta h:t'],
    [keys.sealing('h', 498737, 'f:_'), 'sealing h:f'],
    [keys.cube('h', 498737, 'L:f'), 'section parts h:f'],
    [keys.sealing('d', 20576, 'L:k'), 'sealing parts d:k'],
    [keys.parts('d', 20576), 'parts d'],
    [keys.sealingParts('m', 675), 'parts m'],
    [keys.section('z1d', 29_512_345, 'f'), 'section z1d:f'],
    [keys.cube('z2m', 29_512_345, 'k:1f'), 'delta z2m:k'],
    [keys.dict('i'), 'dictionaries'],
    [keys.dictIndex('s'), 'dictionaries'],
    [keys.bucketIndex('h'), 'bucket indexes'],
    [keys.compactedThrough, 'other'],
  ])('%s -> %s', (key, family) => {
    expect(familyOf(key)).toBe(family);
  });
});
