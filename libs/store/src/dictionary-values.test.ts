import { describe, expect, it } from 'vitest';
import { identityValue, parseIdentity, parseTagSet, REGION_MARK, tagSetValue } from './dictionary-values';

describe('dictionary values', () => {
  it('round-trips identities', () => {
    expect(parseIdentity(identityValue('id_1', 'Kundin 3 ✓'))).toEqual({
      id: 'id_1',
      externalId: 'Kundin 3 ✓',
    });
  });

  it('treats tags as a set: order and repeats do not matter', () => {
    expect(tagSetValue(['b', 'a', 'b'])).toBe('a,b');
    expect(tagSetValue(['a', 'b'])).toBe(tagSetValue(['b', 'a']));
    expect(tagSetValue([])).toBe('');
    expect(tagSetValue(undefined)).toBe('');
    expect(tagSetValue(['x'])).toBe('x');
    expect(tagSetValue(['x', 'x'])).toBe('x');
    expect(tagSetValue(['y', 'x'])).toBe('x,y');
    expect(tagSetValue(['x', 'y', 'x'])).toBe('x,y');
    expect(parseTagSet('')).toEqual({ tags: [], region: undefined });
    expect(parseTagSet('a,b')).toEqual({ tags: ['a', 'b'], region: undefined });
  });

  it('orders by UTF-16 code units, not locale', () => {
    expect(tagSetValue(['é', 'z', 'Z', 'a'])).toBe('Z,a,z,é');
  });

  it('keeps the value of an event without a region (or with an empty one) as it was', () => {
    expect(tagSetValue(['b', 'a'], undefined)).toBe('a,b');
    expect(tagSetValue(['b', 'a'], '')).toBe('a,b');
    expect(tagSetValue(undefined, undefined)).toBe('');
  });

  it('adds the region after a control character, and reads it back whatever the region holds', () => {
    expect(tagSetValue(['b', 'a'], 'eu')).toBe(`a,b${REGION_MARK}eu`);
    expect(tagSetValue([], 'eu')).toBe(`${REGION_MARK}eu`);
    for (const region of ['eu', ',', 'a,b', REGION_MARK, `x${REGION_MARK}y`, '\n', ' ', '✓ région']) {
      for (const tags of [[], ['a'], ['a', 'b']]) {
        expect(parseTagSet(tagSetValue(tags, region))).toEqual({ tags, region });
      }
    }
    // Distinct (tags, region) pairs never share a value.
    expect(tagSetValue(['a'], 'b')).not.toBe(tagSetValue(['a', 'b']));
    expect(tagSetValue([], 'a')).not.toBe(tagSetValue(['a']));
  });
});
