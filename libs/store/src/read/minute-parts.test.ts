import { describe, expect, it } from 'vitest';
import { textsByPart } from '../field-codec';
import { minuteParts } from './minute-parts';

describe('minuteParts', () => {
  it("cuts a minute's text as textsByPart does, again only when the text changed", () => {
    const key = 'p:g1:{a}:n:29000000:f';
    const text = 'a/0.0:0 2 a/1.0:0 1 _/0.0:1 4 b/2.1:0 3';
    const parts = minuteParts(key, text);
    expect(parts).toEqual(textsByPart(text));
    expect(minuteParts(key, `${'a/0.0:0 2'} a/1.0:0 1 _/0.0:1 4 b/2.1:0 3`)).toBe(parts);
    const later = `${text} b/2.1:1 1`;
    const changed = minuteParts(key, later);
    expect(changed).not.toBe(parts);
    expect(changed).toEqual(textsByPart(later));
    // Another key with the same text is cut on its own.
    expect(minuteParts('p:g1:{a}:n:29000001:f', later)).toEqual(changed);
  });
});
