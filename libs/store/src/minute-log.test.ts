import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MinuteLog } from './minute-log';
import { TupleCounter } from './tuple-counter';

type Row = [number, number, number, number, number, number];

/** Every minute count of a counter, summed per tuple, sorted: the plainest statement of what it counted. */
function minuteRows(counter: TupleCounter): { rows: Row[]; sizes: [number, number, number][] } {
  const tuples = counter.minuteTuples();
  if (!tuples) return { rows: [], sizes: [] };
  const sums = new Map<string, number>();
  tuples.forEach((t, k, i, s, o, n) => {
    const key = [t, k, i, s, o].join('|');
    sums.set(key, (sums.get(key) ?? 0) + n);
  });
  const rows = [...sums].map(([key, n]) => [...key.split('|').map(Number), n] as Row).sort(compare);
  const sizes = [...tuples.hourSizes()]
    .map(([t, size]): [number, number, number] => [t, size, tuples.eventsOf(t)])
    .sort(compare);
  return { rows, sizes };
}

const compare = (a: readonly number[], b: readonly number[]): number => {
  for (let x = 0; x < a.length; x++) if (a[x] !== b[x]) return a[x]! - b[x]!;
  return 0;
};

describe('MinuteLog', () => {
  it('counts (minute, entry) pairs minute by minute, entries in the order first logged', () => {
    const log = new MinuteLog();
    for (const [entry, minute] of [
      [2, 5],
      [0, 5],
      [2, 5],
      [1, 0],
      [2, 59],
    ] as const)
      log.push(entry, minute);
    const pairs: number[][] = [];
    log.counts(3).forEach((minute, entry, n) => pairs.push([minute, entry, n]));
    expect(pairs).toEqual([
      [0, 1, 1],
      [5, 2, 2],
      [5, 0, 1],
      [59, 2, 1],
    ]);
  });
});

describe('TupleCounter.addWithMinute', () => {
  const hour = 493_000;
  /** Codes across the packed key's limits (key < 2^20, identity + 1 < 2^16, tag set < 2^13): wide tuples too. */
  const event = fc.record({
    h: fc.integer({ min: hour, max: hour + 2 }),
    m: fc.oneof(fc.integer({ min: 0, max: 59 }), fc.constantFrom(0, 59)),
    k: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(2 ** 20)),
    i: fc.oneof(fc.integer({ min: -1, max: 4 }), fc.constant(2 ** 16 - 1)),
    s: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant(2 ** 13)),
    o: fc.integer({ min: 0, max: 15 }),
  });

  it('counts every minute as add + addMinute do, hours included (property)', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 400 }), fc.array(event, { maxLength: 20 }), (live, apart) => {
        const logged = new TupleCounter();
        const plain = new TupleCounter();
        for (const { h, m, k, i, s, o } of live) {
          logged.addWithMinute(h, h * 60 + m, k, i, s, o);
          plain.add(h, k, i, s, o);
          plain.addMinute(h * 60 + m, k, i, s, o);
        }
        // Minutes counted apart (a minute-only count, as tests and staged writes use), in hours of their own,
        // merge with the logged ones.
        for (const { h, m, k, i, s, o } of apart) {
          logged.addMinute((h + 3) * 60 + m, k, i, s, o);
          plain.addMinute((h + 3) * 60 + m, k, i, s, o);
        }
        expect(minuteRows(logged)).toEqual(minuteRows(plain));
        const hours = (c: TupleCounter) => {
          const rows: Row[] = [];
          c.forEach((...row) => rows.push(row));
          return rows.sort(compare);
        };
        expect(hours(logged)).toEqual(hours(plain));
        expect([logged.events, logged.size]).toEqual([plain.events, plain.size]);
      }),
      { numRuns: 300 },
    );
  });

  it('counts a minute outside its hour apart, not under the wrong hour', () => {
    const c = new TupleCounter();
    c.addWithMinute(hour, (hour + 1) * 60 + 3, 1, -1, 0, 0);
    c.addWithMinute(hour, hour * 60 + 3, 1, -1, 0, 0);
    expect(minuteRows(c).rows).toEqual([
      [hour * 60 + 3, 1, -1, 0, 0, 1],
      [(hour + 1) * 60 + 3, 1, -1, 0, 0, 1],
    ]);
  });

  it('has no minute counts when no event was counted in a minute', () => {
    const c = new TupleCounter();
    c.add(hour, 0, -1, 0, 0);
    expect(c.minuteTuples()).toBeUndefined();
  });
});
