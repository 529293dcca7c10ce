import { describe, expect, it } from 'vitest';
import { identityValue, parseIdentity, parseTagSet, tagSetValue } from './dictionary-values';

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
    expect(parseTagSet('')).toEqual([]);
    expect(parseTagSet('a,b')).toEqual(['a', 'b']);
  });

  it('orders by UTF-16 code units, not locale', () => {
    expect(tagSetValue(['é', 'z', 'Z', 'a'])).toBe('Z,a,z,é');
  });
});
