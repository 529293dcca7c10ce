/**
 * The minute buckets of a batch (docs/design.md "The next store changes", groupBy=minute): TupleCounter's
 * minute counts, expanded by expand into one hash per cube of each minute kept, beside the hour buckets.
 */
import { DAY_MS, HOUR_MS, hourOf, minuteOf } from '@va/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expand, TupleCounter } from './aggregate';
import { decodeField, keySetField, MinuteFieldsPacker, minuteFField, textsByPart } from './field-codec';
import { minuteIncrements } from './minute-increments';
import { stageIncrements } from './staged-chunks';

const retention = {
  hourMs: 35 * DAY_MS,
  dayMs: 400 * DAY_MS,
  monthMs: 1830 * DAY_MS,
  minuteMs: 48 * HOUR_MS,
};
const now = Date.UTC(2026, 2, 2, 10, 30, 20);
const minute = minuteOf(now);

describe('minute increments', () => {
  it('adds every tuple to the cubes t and f of its minute, one hash each, f naming the identity', () => {
    const c = new TupleCounter();
    c.addMinute(minute, 3, 40, 2, 0); // key 3, identity 40 (base 36: "14"), tag set 2, valid
    c.addMinute(minute, 3, 40, 2, 0);
    c.addMinute(minute, 3, -1, 0, 4); // no identity
    c.addMinute(minute - 1, 1, 0, 1, 1);
    const buckets = minuteIncrements(c.minuteTuples()!, { now, retention });
    expect(buckets.map((b) => [b.r, b.t, b.expireAt, b.parts.size])).toEqual([
      ['n', minute, (minute + 1) * 60_000 + retention.minuteMs, 0],
      ['n', minute - 1, minute * 60_000 + retention.minuteMs, 0],
    ]);
    const cubes = Object.fromEntries(
      [...buckets[0]!.cubes].map(([cube, fields]) => [cube, Object.fromEntries(fields)]),
    );
    expect(cubes).toEqual({ t: { '0': 2, '4': 1 }, f: { '14/3.2:0': 2, '_/3.0:4': 1 } });
  });

  it('leaves out a minute whose expiry has passed, and writes no minute without a minute retention', () => {
    const c = new TupleCounter();
    const old = minuteOf(now - retention.minuteMs) - 1;
    c.addMinute(old, 0, -1, 0, 0);
    c.addMinute(old + 1, 0, -1, 0, 0);
    expect(minuteIncrements(c.minuteTuples()!, { now, retention }).map((b) => b.t)).toEqual([old + 1]);
    const { minuteMs: _, ...none } = retention;
    expect(minuteIncrements(c.minuteTuples()!, { now, retention: none })).toEqual([]);
  });

  it('expand writes the minutes after the hour buckets, and counts their events once', () => {
    const c = new TupleCounter();
    c.add(hourOf(now), 5, 1, 0, 2);
    c.addMinute(minute, 5, 1, 0, 2);
    const inc = expand(c, { now, retention, cmp: null });
    expect(inc.buckets.map((b) => b.r)).toEqual(['h', 'n']);
    expect(inc.events).toBe(1);
    expect(inc.required).toEqual({ k: 6, i: 2, s: 1 });
  });

  it('a history batch has no minute counter: expand writes hours only', () => {
    const c = new TupleCounter();
    c.add(hourOf(now) - 24 * 20, 5, 1, 0, 2);
    expect(c.minuteTuples()).toBeUndefined();
    expect(expand(c, { now, retention, cmp: null }).buckets.map((b) => b.r)).toEqual(['h']);
  });

  it('stages minute buckets like hour buckets when a call is over its bound', () => {
    const c = new TupleCounter();
    for (let k = 0; k < 50; k++) {
      c.add(hourOf(now), k, -1, 0, 0);
      c.addMinute(minute, k, -1, 0, 0);
    }
    const inc = expand(c, { now, retention, cmp: null });
    const staged = stageIncrements(inc, 20);
    expect(staged.buckets).toEqual([]);
    expect(staged.chunks.join('\n')).toContain(` n ${minute} `);
  });

  it('packs a minute f of many tuples seen about once each into one value, and keeps repeating tuples as fields', () => {
    const c = new TupleCounter();
    for (let k = 0; k < 16; k++) c.addMinute(minute, k, k % 3 === 0 ? -1 : k, 0, k % 2);
    c.addMinute(minute, 0, -1, 0, 0); // a repeat: 17 events in 16 tuples
    for (let n = 0; n < 32; n++) c.addMinute(minute - 1, n % 16, -1, 0, 0); // 16 tuples, 2 events each
    const [packed, repeating] = minuteIncrements(c.minuteTuples()!, { now, retention });
    expect([packed!.t, [...packed!.cubes.keys()], [...packed!.parts.keys()]]).toEqual([minute, ['t'], ['f']]);
    const fields = minuteIncrements(c.minuteTuples()!, {
      now,
      retention,
      partsMinRows: Infinity,
    })[0]!.cubes.get('f')!;
    expect(packed!.parts.get('f')!.toString('latin1')).toBe(
      [...fields].map(([field, n]) => `${field} ${n}`).join(' '),
    );
    expect(fields.get('_/0.0:0')).toBe(2);
    expect([repeating!.t, [...repeating!.cubes.keys()], repeating!.parts.size]).toEqual([
      minute - 1,
      ['t', 'f'],
      0,
    ]);
    expect(repeating!.cubes.get('f')!.size).toBe(16);
  });

  it('packs pairs as their text, whatever the counts and however many (property)', () => {
    const code = fc.integer({ min: 0, max: 36 ** 6 }).map((c) => c.toString(36));
    const pair = fc.tuple(
      fc.oneof(code, fc.constant('_')),
      code,
      code,
      fc.integer({ min: 0, max: 8 }),
      fc.oneof(
        fc.integer({ min: 1, max: 12 }),
        fc.maxSafeInteger().map((n) => Math.max(1, n)),
      ),
    );
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 400 }), (pairs) => {
        const packer = new MinuteFieldsPacker();
        const fields: string[] = [];
        for (const [part, key, set, o, n] of pairs) {
          packer.add(part, key, set, o, n);
          fields.push(minuteFField(part, keySetField(key, set, o)));
        }
        const text = fields.map((field, p) => `${field} ${pairs[p]![4]}`).join(' ');
        expect(packer.bytes().toString('latin1')).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it('a packed field reads back as its pairs: HGETALL text with "#<n>" names cuts as if they were fields', () => {
    const packer = new MinuteFieldsPacker();
    packer.add('14', '3', '2', 0, 2);
    packer.add('_', '3', '0', 4, 1);
    const packed = packer.bytes().toString('latin1');
    expect(packed).toBe('14/3.2:0 2 _/3.0:4 1');
    const text = `14/5.0:1 7 #1 ${packed} #12 14/3.2:0 1`;
    expect([...textsByPart(text)]).toEqual([
      ['14', '5.0:1 7 3.2:0 2 3.2:0 1'],
      ['_', '3.0:4 1'],
    ]);
    expect(() => textsByPart('#x 14/3.2:0 2')).toThrow(/malformed/);
    expect(() => textsByPart('# 14/3.2:0 2')).toThrow(/malformed/);
    expect(() => textsByPart('14/3.2:0 2 #3')).toThrow(/malformed/);
  });

  it("a minute f hash's text reads back per identity, as f fields", () => {
    const texts = textsByPart('14/3.2:0 2 _/3.0:4 1 14/5.0:1 7');
    expect([...texts]).toEqual([
      ['14', '3.2:0 2 5.0:1 7'],
      ['_', '3.0:4 1'],
    ]);
    expect(decodeField('f', '3.2:0')).toEqual({ outcome: 0, codes: [3, 2] });
    expect([...textsByPart('14/3.2:0 2 _/3.0:4 1', (part) => part === '_')]).toEqual([['_', '3.0:4 1']]);
    expect(() => textsByPart('3.2:0 2')).toThrow(/malformed/);
    expect(() => textsByPart('0a/3.2:0 2')).toThrow(/malformed/);
  });
});
