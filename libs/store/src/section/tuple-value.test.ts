import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTCOME_COUNT } from '@va/contracts';
import { sectionsOfTuples, type TupleSource } from './tuple-sections';
import {
  coarsened,
  decodeTupleValue,
  encodeTupleValue,
  mergeTupleValues,
  tupleValueOf,
  tuplesOfSpan,
  type TupleValue,
} from './tuple-value';

/** A counted tuple with its absolute hour: [hour, key, identity (-1: none), tag set, outcome, count]. */
type Event = [h: number, k: number, i: number, s: number, o: number, n: number];

const MONTH_FIRST_HOUR = 490_000; // any hour: the value keeps hours relative to it
const HOURS_IN_MONTH = 30 * 24;

const event = fc.tuple(
  fc.integer({ min: MONTH_FIRST_HOUR, max: MONTH_FIRST_HOUR + HOURS_IN_MONTH - 1 }),
  fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 2 ** 22 })),
  fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 2 ** 17 })),
  fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 ** 14 })),
  fc.integer({ min: 0, max: OUTCOME_COUNT - 1 }),
  fc.integer({ min: 1, max: 1000 }),
);
const events = fc.array(event, { maxLength: 200 });

const sourceOf = (list: readonly Event[]): TupleSource => ({
  forEach: (fn) => list.forEach(([h, k, i, s, o, n]) => fn(h, k, i, s, o, n)),
});

/** Tuples as plain rows, for equality: the order and the summing are what is compared. */
const rowsOf = (value: TupleValue): number[][] =>
  Array.from({ length: value.size }, (_, n) => [
    value.hours[n]!,
    value.keys[n]!,
    value.identities[n]!,
    value.sets[n]!,
    value.outcomes[n]!,
    value.counts[n]!,
  ]);

/** The five cube sections of tuples, as plain rows per cube. */
function sectionRows(source: TupleSource) {
  return [...sectionsOfTuples(source)].map(([cube, section]) => [
    cube,
    section.rows,
    section.dims.map((column) => Array.from(column)),
    Array.from(section.counts),
  ]);
}

describe('tuple values of a small API-month', () => {
  it('encode and decode to the same sorted, summed tuples (property)', () => {
    fc.assert(
      fc.property(events, fc.integer({ min: 0, max: 2 ** 40 }), (list, version) => {
        const value = tupleValueOf(sourceOf(list), MONTH_FIRST_HOUR, version);
        const decoded = decodeTupleValue(encodeTupleValue(value));
        expect(decoded.version).toBe(version);
        expect(rowsOf(decoded)).toEqual(rowsOf(value));
        // Sorted, and no two tuples equal but for their count.
        const rows = rowsOf(value).map((row) => row.slice(0, 5).join('.'));
        expect(new Set(rows).size).toBe(rows.length);
        const total = list.reduce((sum, e) => sum + e[5], 0);
        expect(value.counts.reduce((sum, n) => sum + n, 0)).toBe(total);
      }),
    );
  });

  it('merging the values of parts gives the value of all their events (property)', () => {
    fc.assert(
      fc.property(fc.array(events, { maxLength: 5 }), (parts) => {
        const values = parts.map((list) => tupleValueOf(sourceOf(list), MONTH_FIRST_HOUR, 1));
        const merged = mergeTupleValues(values, 7);
        expect(merged.version).toBe(7);
        expect(rowsOf(merged)).toEqual(rowsOf(tupleValueOf(sourceOf(parts.flat()), MONTH_FIRST_HOUR, 7)));
      }),
    );
  });

  it('derives the sections of any span of hours that the events of that span give (property)', () => {
    const span = fc
      .tuple(fc.nat(HOURS_IN_MONTH - 1), fc.nat(HOURS_IN_MONTH - 1))
      .map(([a, b]) => [MONTH_FIRST_HOUR + Math.min(a, b), MONTH_FIRST_HOUR + Math.max(a, b)] as const);
    fc.assert(
      fc.property(events, span, (list, [from, to]) => {
        const value = decodeTupleValue(encodeTupleValue(tupleValueOf(sourceOf(list), MONTH_FIRST_HOUR, 3)));
        const inSpan = list.filter(([h]) => h >= from && h <= to);
        expect(sectionRows(tuplesOfSpan(value, MONTH_FIRST_HOUR, from, to))).toEqual(
          sectionRows(sourceOf(inSpan)),
        );
      }),
    );
  });

  it('coarsened to days keeps every day and the month, and no hour detail (property)', () => {
    fc.assert(
      fc.property(events, fc.nat(29), (list, day) => {
        const value = tupleValueOf(sourceOf(list), MONTH_FIRST_HOUR, 1);
        const byDay = coarsened(value, 'day');
        expect(byDay.hours.every((h) => h % 24 === 0)).toBe(true);
        const [from, to] = [MONTH_FIRST_HOUR + day * 24, MONTH_FIRST_HOUR + day * 24 + 23];
        const sectionsOf = (v: TupleValue, a: number, b: number) =>
          sectionRows(tuplesOfSpan(v, MONTH_FIRST_HOUR, a, b));
        expect(sectionsOf(byDay, from, to)).toEqual(sectionsOf(value, from, to));
        const last = MONTH_FIRST_HOUR + HOURS_IN_MONTH - 1;
        const byMonth = coarsened(byDay, 'month');
        expect(sectionsOf(byMonth, MONTH_FIRST_HOUR, last)).toEqual(
          sectionsOf(value, MONTH_FIRST_HOUR, last),
        );
        expect(byMonth.size).toBeLessThanOrEqual(byDay.size);
      }),
    );
  });

  it('holds a tail API-month in a few bytes per tuple', () => {
    // One key with an identity and one tag set, an event an hour for 30 days: 720 tuples.
    const list: Event[] = Array.from({ length: HOURS_IN_MONTH }, (_, h) => [
      MONTH_FIRST_HOUR + h,
      3,
      1,
      2,
      0,
      1,
    ]);
    const bytes = encodeTupleValue(tupleValueOf(sourceOf(list), MONTH_FIRST_HOUR, 1)).length;
    expect(bytes).toBeLessThanOrEqual(3 + 720 * 6);
  });

  it('refuses an hour outside the month and bytes it does not know', () => {
    expect(() =>
      tupleValueOf(sourceOf([[MONTH_FIRST_HOUR - 1, 0, -1, 0, 0, 1]]), MONTH_FIRST_HOUR, 1),
    ).toThrow(/not in the month/);
    expect(() => decodeTupleValue(Uint8Array.of(2, 0, 0))).toThrow(/unknown format/);
    const bytes = encodeTupleValue(
      tupleValueOf(sourceOf([[MONTH_FIRST_HOUR, 1, 1, 1, 1, 1]]), MONTH_FIRST_HOUR, 1),
    );
    expect(() => decodeTupleValue(Buffer.concat([bytes, Buffer.of(0)]))).toThrow(/after the last tuple/);
  });
});
