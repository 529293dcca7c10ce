import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addCount,
  CodeCounts,
  FieldSums,
  groupCodes,
  type CodeSelection,
  type SliceCounts,
} from './read-fields';
import { readsDependOnCompaction } from './read';
import { selectionOf } from './read/cube-query';
import { cubeQuery } from './testing/cube-query';

const none = { key: false, identity: false, set: false };
const sel = (over: Partial<CodeSelection>): CodeSelection => ({
  cube: 't',
  keys: null,
  identities: null,
  sets: null,
  group: none,
  ...over,
});
const sum = (into: Map<string, number[]>) => Object.fromEntries(into);
/** Every field of a hash (HGETALL reply) through addCount, times sign. */
const addHash = (
  into: SliceCounts,
  s: CodeSelection,
  part: string,
  hash: Record<string, string>,
  sign = 1,
) => {
  for (const field in hash) addCount(into, s, part, field, sign * Number(hash[field]));
};
const addField = (into: SliceCounts, s: CodeSelection, part: string, field: string, value: string) =>
  addCount(into, s, part, field, Number(value));
const counts = (...pairs: [number, number][]) => {
  const out = new Array<number>(9).fill(0);
  for (const [o, n] of pairs) out[o] = n;
  return out;
};

describe('addCount', () => {
  it('sums the totals cube', () => {
    const into = new Map<string, number[]>();
    addHash(into, sel({}), '', { '0': '3', '8': '1' });
    expect(sum(into)).toEqual({ '..': counts([0, 3], [8, 1]) });
    // field-codec.ts: a malformed field is a broken store, never skipped.
    expect(() => addHash(into, sel({}), '', { bogus: '5' })).toThrow(/malformed counter field "bogus"/);
    expect(() => addHash(into, sel({}), '', { '9': '1' })).toThrow(/bad outcome/);
  });

  it('groups a single-dimension cube by its code, or sums it', () => {
    const fields = { 'a:0': '1', 'a:2': '2', 'b:0': '4', '1a:5': '1' };
    const grouped = new Map<string, number[]>();
    addHash(grouped, sel({ cube: 'k', group: { ...none, key: true } }), '0', fields);
    expect(sum(grouped)).toEqual({
      'a..': counts([0, 1], [2, 2]),
      'b..': counts([0, 4]),
      '1a..': counts([5, 1]),
    });
    const summed = new Map<string, number[]>();
    addHash(summed, sel({ cube: 'k', keys: new Set(['a', 'b']) }), '0', fields);
    expect(sum(summed)).toEqual({ '..': counts([0, 5], [2, 2]) });
  });

  it('places identity and set codes in their positions of the group name', () => {
    const i = new Map<string, number[]>();
    addField(i, sel({ cube: 'i', group: { ...none, identity: true } }), '0', '7:1', '2');
    const s = new Map<string, number[]>();
    addField(s, sel({ cube: 's', group: { ...none, set: true } }), '0', '0:1', '2');
    expect(sum(i)).toEqual({ '.7.': counts([1, 2]) });
    expect(sum(s)).toEqual({ '..0': counts([1, 2]) });
  });

  it('reads the full cube: key and set from the field, identity from the part', () => {
    const fields = { 'a.0:0': '1', 'a.1:0': '2', 'b.1:3': '4' };
    const all = new Map<string, number[]>();
    addHash(all, sel({ cube: 'f', group: { key: true, identity: true, set: true } }), 'z', fields);
    expect(sum(all)).toEqual({ 'a.z.0': counts([0, 1]), 'a.z.1': counts([0, 2]), 'b.z.1': counts([3, 4]) });

    const filtered = new Map<string, number[]>();
    addHash(filtered, sel({ cube: 'f', keys: new Set(['a']), sets: new Set(['1']) }), 'z', fields);
    expect(sum(filtered)).toEqual({ '..': counts([0, 2]) });

    const byIdentity = new Map<string, number[]>();
    addHash(byIdentity, sel({ cube: 'f', group: { ...none, identity: true } }), '_', fields);
    expect(sum(byIdentity)).toEqual({}); // events without identity are in no identity group
  });
});

describe('CodeCounts and groupCodes', () => {
  it('adds a read of cube f to one of cube k by group name, signs included', () => {
    const hours = new CodeCounts();
    addHash(hours.slice(1), sel({ cube: 'k', group: { ...none, key: true } }), '0', {
      'a:0': '5',
      'b:1': '2',
    });
    const minutes = new CodeCounts();
    const f = sel({ cube: 'f', group: { ...none, key: true } });
    addHash(minutes.slice(1), f, 'z', { 'a.0:0': '3' }, -1);
    addHash(minutes.slice(2), f, 'z', { 'a.0:0': '3', 'c.1:4': '1' });
    hours.add(minutes);
    expect(sum(hours.slice(1))).toEqual({ 'a..': counts([0, 2]), 'b..': counts([1, 2]) });
    expect(sum(hours.slice(2))).toEqual({ 'a..': counts([0, 3]), 'c..': counts([4, 1]) });
  });

  it('keeps slices apart', () => {
    const c = new CodeCounts();
    addField(c.slice(1), sel({}), '', '0', '1');
    addField(c.slice(2), sel({}), '', '0', '1');
    addField(c.slice(1), sel({}), '', '0', '1');
    expect([...c.slices.keys()]).toEqual([1, 2]);
    expect(c.slice(1).get('..')![0]).toBe(2);
  });

  it('keeps the largest groups of a top-N, ties included (keepLargest)', () => {
    const c = new CodeCounts();
    const counts = (valid: number, notFound: number) => [valid, notFound, 0, 0, 0, 0, 0, 0, 0];
    const groups = c.slice(null);
    groups.set('.1.', counts(5, 0));
    groups.set('.2.', counts(1, 9)); // total 10
    groups.set('.3.', counts(4, 1)); // total 5, ties with .1.
    groups.set('.4.', counts(2, 0));
    c.keepLargest({ counter: 9, limit: 2 }); // by total
    expect([...groups.keys()]).toEqual(['.1.', '.2.', '.3.']);
    c.keepLargest({ counter: 0, limit: 1 }); // by valid
    expect([...groups.keys()]).toEqual(['.1.']);
  });

  it('decodes group names to codes', () => {
    expect(groupCodes('..')).toEqual([undefined, undefined, undefined]);
    expect(groupCodes('a.z.10')).toEqual([10, 35, 36]);
    expect(groupCodes('.3.')).toEqual([undefined, 3, undefined]);
  });

  it('decodes every name as parseInt of its parts did (property)', () => {
    const part = fc.oneof(
      fc.constant(''),
      fc.integer({ min: 0, max: 2 ** 32 }).map((code) => code.toString(36)),
      fc.stringMatching(/^[0-9a-zA-Z_-]{1,8}$/), // not one of our codes: parseInt's answer
    );
    fc.assert(
      fc.property(fc.tuple(part, part, part), (parts) => {
        const parsed = parts.map((text) => (text === '' ? undefined : parseInt(text, 36)));
        expect(groupCodes(parts.join('.'))).toEqual(parsed);
      }),
    );
  });
});

describe('readsDependOnCompaction', () => {
  const hour = (index: number) => ({ res: 'h' as const, index, slice: null });
  const day = (index: number) => ({ res: 'd' as const, index, slice: null });
  const month = (index: number) => ({ res: 'm' as const, index, slice: null });
  const closed = 10_000; // every rollup below ends before this compaction point

  it('is true when an hour is read beside its day or month rollup (or a day beside its month)', () => {
    expect(readsDependOnCompaction([hour(1), hour(2)], closed)).toBe(false);
    expect(readsDependOnCompaction([hour(1), hour(2)], null)).toBe(false);
    expect(readsDependOnCompaction([day(1), hour(23)], closed)).toBe(false);
    expect(readsDependOnCompaction([day(1), hour(24)], closed)).toBe(true);
    expect(readsDependOnCompaction([month(0), hour(5)], closed)).toBe(true);
    expect(readsDependOnCompaction([month(0), day(3)], closed)).toBe(true);
    expect(readsDependOnCompaction([month(1), day(3)], closed)).toBe(false);
  });

  it('is true when a rollup read is still open to compaction', () => {
    // Day 1 is hours 24..47: open while the point is before its last hour.
    expect(readsDependOnCompaction([day(1)], 47)).toBe(false);
    expect(readsDependOnCompaction([day(1)], 46)).toBe(true);
    expect(readsDependOnCompaction([day(1)], null)).toBe(true);
    // Month 0 (January 1970) ends with hour 743.
    expect(readsDependOnCompaction([month(0), hour(800)], 743)).toBe(false);
    expect(readsDependOnCompaction([month(0), hour(800)], 742)).toBe(true);
  });
});

describe('subtract reads', () => {
  it('takes counts of a subtracted bucket back out of the same group', () => {
    const sel: CodeSelection = selectionOf(cubeQuery({ group: { ...none, key: true } }));
    const into: SliceCounts = new Map();
    addHash(into, sel, '0', { 'a:0': '5', 'b:1': '2' });
    addHash(into, sel, '0', { 'a:0': '3' }, -1);
    expect(into.get('a..')![0]).toBe(2);
    expect(into.get('b..')![1]).toBe(2);
  });
});

describe('FieldSums', () => {
  const text = (hash: Record<string, string>) =>
    Object.entries(hash)
      .flatMap(([f, v]) => [f, v])
      .join(' ');
  const viaAddCount = (s: CodeSelection, part: string, hashes: [Record<string, string>, 1 | -1][]) => {
    const into: SliceCounts = new Map();
    for (const [hash, sign] of hashes) addHash(into, s, part, hash, sign);
    return into;
  };
  const viaText = (s: CodeSelection, part: string, hashes: [Record<string, string>, 1 | -1][]) => {
    const fields = new FieldSums(s.cube);
    for (const [hash, sign] of hashes) fields.addText(text(hash), sign);
    const into: SliceCounts = new Map();
    fields.addTo(into, s, part);
    return into;
  };

  it('sums hash texts exactly as addCount sums the hashes, long codes and cube f included', () => {
    const k = sel({ cube: 'k', group: { ...none, key: true } });
    const hashes: [Record<string, string>, 1 | -1][] = [
      [{ '0:0': '5', 'a:1': '2', '1z:8': '7', '0:3': '4' }, 1],
      [{ '0:0': '2', 'a:1': '2', 'zzzzzzzz:0': '12345678901' }, 1],
      [{ '0:0': '3', 'a:1': '1' }, -1],
    ];
    expect(sum(viaText(k, '0', hashes))).toEqual(sum(viaAddCount(k, '0', hashes)));
    expect(viaText(k, '0', hashes).get('0..')).toEqual(counts([0, 4], [3, 4]));
    const filtered = sel({ cube: 'k', keys: new Set(['a', '1z']) });
    expect(sum(viaText(filtered, '0', hashes))).toEqual(sum(viaAddCount(filtered, '0', hashes)));
    const t = sel({});
    const totals: [Record<string, string>, 1 | -1][] = [
      [{ '0': '3', '8': '1' }, 1],
      [{ '0': '1' }, -1],
    ];
    expect(sum(viaText(t, '', totals))).toEqual(sum(viaAddCount(t, '', totals)));
    const f = sel({ cube: 'f', group: { key: true, identity: true, set: true } });
    const full: [Record<string, string>, 1 | -1][] = [[{ 'a.1:0': '2', 'b.10:3': '1' }, 1]];
    expect(sum(viaText(f, 'z', full))).toEqual(sum(viaAddCount(f, 'z', full)));
  });

  it('keeps a group whose sum is zero, as addCount does', () => {
    const i = sel({ cube: 'i', group: { ...none, identity: true } });
    const hashes: [Record<string, string>, 1 | -1][] = [
      [{ '7:1': '2' }, 1],
      [{ '7:1': '2' }, -1],
    ];
    expect(sum(viaText(i, '0', hashes))).toEqual({ '.7.': counts([1, 0]) });
    expect(sum(viaText(i, '0', hashes))).toEqual(sum(viaAddCount(i, '0', hashes)));
  });

  it('refuses a malformed text', () => {
    expect(() => new FieldSums('k').addText('0:0', 1)).toThrow(/without a value/);
    expect(() => new FieldSums('k').addText('0:0 12x', 1)).toThrow(/not an integer/);
    expect(() => new FieldSums('k').addText('0:0 ', 1)).toThrow(/not an integer/);
  });
});
