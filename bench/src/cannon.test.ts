import { describe, expect, it } from 'vitest';
import { failureText, rotation } from './cannon';

describe('rotation', () => {
  it('cycles through the items in order, starting with the first', () => {
    const next = rotation(['a', 'b', 'c']);
    expect(Array.from({ length: 7 }, next)).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a']);
    expect(() => rotation([])).toThrow();
  });

  it('names failures by kind', () => {
    expect(failureText({ 'HTTP 429': 3, timeout: 1 })).toBe('HTTP 429 x3, timeout x1');
    expect(failureText({})).toBe('');
  });
});
