import { describe, expect, it } from 'vitest';
import { localDayStart, localMonthStart } from './calendar';
import { DAY_MS, dayOf, dayStart, hourOf, monthOf } from './time';
import { composeSlice, edgeAt, EdgeFinder, edgesOfUtcDay, type ZoneEdge } from './zone-edges';

const ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Europe/London',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/St_Johns',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
];

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FROM = Date.UTC(2025, 11, 20);
const TO = Date.UTC(2027, 1, 10);

/** 4,000 instants drawn uniformly from [FROM, TO). */
function randomInstants(seed: number): number[] {
  const next = random(seed);
  return Array.from({ length: 4000 }, () => FROM + Math.floor(next() * (TO - FROM)));
}

describe('zone edges', () => {
  it('an edge is the shorter side of its UTC day, and a month start is in the m family', () => {
    const kolkata = edgeAt('Asia/Kolkata', 1, Date.UTC(2026, 2, 31, 18, 30))!;
    expect(kolkata).toMatchObject({ side: 'tail', res: 'z1m', to: Date.UTC(2026, 3, 1) });
    const ny = edgeAt('America/New_York', 2, Date.UTC(2026, 2, 9, 4))!;
    expect(ny).toMatchObject({ side: 'head', res: 'z2d', from: Date.UTC(2026, 2, 9) });
    expect(edgeAt('Europe/London', 1, Date.UTC(2026, 0, 5))).toBeNull();
  });

  it('a UTC day holds the edges of the local midnights inside it (none or two around a change)', () => {
    for (const zone of ZONES) {
      for (let d = dayOf(FROM); d < dayOf(TO); d++) {
        const edges = edgesOfUtcDay(zone, 1, d);
        for (const e of edges) expect(e.x >= dayStart(d) && e.x < dayStart(d) + DAY_MS).toBe(true);
        expect(edges.length).toBeLessThanOrEqual(2);
      }
    }
  });

  it('every local day and month is its UTC days and two edges, for random events (the worker counts edges by EdgeFinder)', () => {
    const events = randomInstants(7);
    for (const zone of ZONES) {
      const finder = new EdgeFinder(zone, 1);
      const edgeCounts = new Map<number, number>();
      const utcDays = new Map<number, number>();
      for (const t of events) {
        utcDays.set(dayOf(t), (utcDays.get(dayOf(t)) ?? 0) + 1);
        for (const e of finder.at(t)) edgeCounts.set(e.index, (edgeCounts.get(e.index) ?? 0) + 1);
      }
      const composed = (x: number, y: number): number => {
        const { edges, firstDay, lastDay } = composeSlice(zone, 1, x, y);
        let n = 0;
        for (let d = firstDay; d <= lastDay; d++) n += utcDays.get(d) ?? 0;
        for (const { edge, subtract } of edges) n += (subtract ? -1 : 1) * (edgeCounts.get(edge.index) ?? 0);
        return n;
      };
      const direct = (x: number, y: number): number => events.filter((t) => t >= x && t < y).length;
      const firstDay = dayOf(FROM) + 2;
      for (let d = firstDay; d < dayOf(TO) - 2; d += 1) {
        const x = localDayStart(zone, d);
        expect(composed(x, localDayStart(zone, d + 1)), `${zone} day ${d}`).toBe(
          direct(x, localDayStart(zone, d + 1)),
        );
      }
      for (let m = monthOf(FROM) + 1; m < monthOf(TO) - 1; m++) {
        const x = localMonthStart(zone, m);
        const y = localMonthStart(zone, m + 1);
        expect(composed(x, y), `${zone} month ${m}`).toBe(direct(x, y));
      }
    }
  });

  it('an edge is its cut hours counted event by event plus its whole hours counted hour by hour', () => {
    const events = randomInstants(11);
    const bump = (m: Map<string, number>, e: ZoneEdge, n = 1) =>
      m.set(`${e.res}:${e.index}`, (m.get(`${e.res}:${e.index}`) ?? 0) + n);
    for (const zone of ZONES) {
      const finder = new EdgeFinder(zone, 2);
      const byEvent = new Map<string, number>();
      const split = new Map<string, number>();
      const perHour = new Map<number, number>();
      for (const t of events) {
        for (const e of finder.at(t)) bump(byEvent, e);
        for (const e of finder.cut(t)) bump(split, e);
        perHour.set(hourOf(t), (perHour.get(hourOf(t)) ?? 0) + 1);
      }
      for (const [h, n] of perHour) for (const e of finder.wholeHour(h)) bump(split, e, n);
      expect(split, zone).toEqual(byEvent);
    }
    // Kolkata's tail [18:30, 24:00): hour 18 is cut, hours 19-23 are whole.
    const kolkata = new EdgeFinder('Asia/Kolkata', 1);
    const h18 = hourOf(Date.UTC(2026, 5, 10, 18));
    expect(kolkata.cut(Date.UTC(2026, 5, 10, 18, 40))).toHaveLength(1);
    expect(kolkata.wholeHour(h18)).toEqual([]);
    expect(kolkata.cut(Date.UTC(2026, 5, 10, 19, 40))).toEqual([]);
    expect(kolkata.wholeHour(h18 + 1)).toHaveLength(1);
    expect(kolkata.wholeHour(h18 + 6)).toEqual([]);
  });

  it('an event is counted in the edges whose window holds it, and only those', () => {
    const finder = new EdgeFinder('Asia/Kathmandu', 3);
    const x = Date.UTC(2026, 5, 10, 18, 15);
    const inside: ZoneEdge[] = finder.at(x);
    expect(inside.map((e) => [e.res, e.side])).toEqual([['z3d', 'tail']]);
    expect(finder.at(x - 1)).toEqual([]);
    expect(finder.at(Date.UTC(2026, 5, 11) - 1)).toHaveLength(1);
  });
});
