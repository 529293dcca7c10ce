import { describe, expect, it } from 'vitest';
import { dayOfHour, hourOf, monthOfDay, monthOfHour, planReads, type BucketRead } from '@va/core';
import { apiKeys } from '../keys';
import type { RollupChildren } from '../rollup-children';
import type { SectionView } from '../read-sections';
import type { CachedMinutes, CachedSection, SectionStore } from '../section-cache';
import { cubeQuery } from '../testing/cube-query';
import { deltaPlanOf } from './cube-query';
import { chunksOf, readsOfUnit, unitsOf, type Unit } from './units';

const NOW = Date.UTC(2026, 10, 27, 15, 42);
const nowHour = hourOf(NOW);
const keys = apiKeys({ prefix: 't', generation: 1 }, 'a');
const q = cubeQuery({ cube: 't' });

/** A zone's day slices over the last `days` days, every hour kept and compacted but the current one. */
const zonePlan = (timeZone: string, days: number): BucketRead[] =>
  planReads({
    startHour: nowHour - days * 24,
    endHour: nowHour,
    granularity: 'day',
    compactedThrough: nowHour - 1,
    horizons: { hour: nowHour - 90 * 24, day: 0, month: 0 },
    dataThroughHour: nowHour,
    timeZone,
  }).reads;

const id = (r: BucketRead) => `${r.res}${r.index}/${r.slice}/${r.subtract ? '-' : '+'}`;

describe('read units (#43 zone reads)', () => {
  it.each(['America/New_York', 'Asia/Kolkata'])(
    'reads each hour bucket of %s day slices once, counting it in every slice that asks for it',
    (zone) => {
      const reads = zonePlan(zone, 30);
      const hours = reads.filter((r) => r.res === 'h');
      const distinctHours = new Set(hours.map((r) => r.index));
      // The plan asks for the edge hours twice: added to one day, subtracted from the next.
      expect(hours.length).toBeGreaterThan(1.5 * distinctHours.size);
      const units = unitsOf(q, deltaPlanOf(q), reads, keys, undefined, false);
      const unitHours = units.filter((u) => u.read.res === 'h').map((u) => u.read.index);
      expect(unitHours.sort()).toEqual([...distinctHours].sort());
      // Every read is counted, once, from its bucket's unit.
      expect(units.flatMap((u) => readsOfUnit(u).map(id)).sort()).toEqual(reads.map(id).sort());
      for (const u of units)
        for (const r of readsOfUnit(u)) expect([r.res, r.index]).toEqual([u.read.res, u.read.index]);
      // One reply per bucket: a unit and its repeats are in one call whatever the bound.
      expect(chunksOf(units, reads, 1).flat()).toHaveLength(units.length);
    },
  );

  it('reads each minute splitting a Kolkata midnight once, subtracted from one day and added to the next', () => {
    const reads = planReads({
      startHour: nowHour - 40,
      endHour: nowHour,
      granularity: 'day',
      compactedThrough: nowHour - 1,
      horizons: { hour: nowHour - 90 * 24, day: 0, month: 0 },
      dataThroughHour: nowHour,
      timeZone: 'Asia/Kolkata',
      firstMinuteKept: (nowHour - 47) * 60,
    }).reads;
    const minutes = reads.filter((r) => r.res === 'n');
    const distinct = new Set(minutes.map((r) => r.index));
    expect(distinct.size).toBeGreaterThanOrEqual(30);
    expect(minutes).toHaveLength(2 * distinct.size);
    const units = unitsOf(q, deltaPlanOf(q), reads, keys, undefined, false);
    const unitMinutes = units.filter((u) => u.read.res === 'n');
    expect(unitMinutes.map((u) => u.read.index).sort()).toEqual([...distinct].sort());
    expect(unitMinutes.flatMap((u) => readsOfUnit(u).map(id)).sort()).toEqual(minutes.map(id).sort());
  });

  it('leaves a plan without repeats as it is', () => {
    const reads = zonePlan('UTC', 30);
    const units = unitsOf(q, deltaPlanOf(q), reads, keys, undefined, false);
    expect(units).toHaveLength(reads.length);
    expect(units.every((u) => u.also === undefined)).toBe(true);
  });
});

/** A section store of plain maps (sections are not looked into here). */
function fakeStore(): SectionStore & {
  sections: Map<string, CachedSection>;
  records: Map<string, RollupChildren>;
} {
  const sections = new Map<string, CachedSection>();
  const records = new Map<string, RollupChildren>();
  const minutes = new Map<string, CachedMinutes>();
  const none = () => undefined;
  return {
    sections,
    records,
    get: (key) => sections.get(key),
    set: (key, entry) => sections.set(key, entry),
    hit: none,
    miss: none,
    recorded: (key) => records.get(key),
    setRecorded: (key, children) => records.set(key, children),
    monthHit: none,
    dayHit: none,
    minutes: (key) => minutes.get(key),
    setMinutes: (key, entry) => minutes.set(key, entry),
    minuteHourHit: none,
  };
}

describe("read units: a month's days and hours, a day's hours, as one (#43, rollup-children.ts)", () => {
  const cmp = nowHour - 1;
  const reads = zonePlan('America/New_York', 30);
  const compactedHours = reads.filter((r) => r.res === 'h' && r.index <= cmp);
  const mItems = (units: Unit[]) =>
    units.flatMap((u) => u.items.flatMap((item) => (item.kind === 'M' ? [{ unit: u, item }] : [])));
  const recordsOf = (units: Unit[], res: 'd' | 'h') =>
    mItems(units).flatMap(({ item }) =>
      item.children.flatMap((c) => (c.kind === 'record' && c.res === res ? [{ item, c }] : [])),
    );

  it("records a grouped month's compacted hours under the month, apart from its days, in the month's family", () => {
    const units = unitsOf(q, deltaPlanOf(q), reads, keys, fakeStore(), true, cmp);
    const hours = recordsOf(units, 'h');
    const months = new Set(reads.filter((r) => r.res === 'd').map((r) => monthOfDay(r.index)));
    expect(months.size).toBe(2);
    expect(hours).toHaveLength(months.size);
    expect(recordsOf(units, 'd')).toHaveLength(months.size);
    for (const { item, c } of hours) {
      expect(item.children).toHaveLength(1);
      expect(item.key).toBe(keys.section('m', monthOfHour(c.units[0]!.read.index), 't'));
      expect(item.absent).toContain(keys.stage);
      expect(c.units.every((u) => u.read.index <= cmp)).toBe(true);
    }
    for (const { item } of recordsOf(units, 'd')) expect(item.absent).not.toContain(keys.stage);
    // Every compacted hour is recorded, under its month.
    const recorded = hours.flatMap(({ c }) => c.units.flatMap(readsOfUnit));
    expect(recorded.map(id).sort()).toEqual(compactedHours.map(id).sort());
    // However small the bound, a month's M items, its days and its hours share a call.
    const chunks = chunksOf(units, reads, 1);
    for (const { unit } of mItems(units)) {
      const chunk = chunks.find((c) => c.includes(unit))!;
      const month = Number(unit.family!.slice(1));
      for (const u of units)
        if (u.read.res !== 'n' && u.read.index <= (u.read.res === 'h' ? cmp : Infinity))
          if ((u.read.res === 'd' ? monthOfDay : monthOfHour)(u.read.index) === month)
            expect(chunk).toContain(u);
    }
  });

  it("checks a month's recorded days and compacted hours with one M item, reading none of them", () => {
    const store = fakeStore();
    const version = Buffer.alloc(8, 1);
    const section = {} as SectionView;
    for (const r of reads)
      if (r.res !== 'n') store.sections.set(keys.section(r.res, r.index, 't'), { version, section });
    for (const res of ['d', 'h'] as const)
      for (const { c } of recordsOf(unitsOf(q, deltaPlanOf(q), reads, keys, store, true, cmp), res)) {
        if (c.kind !== 'record') continue;
        store.records.set(c.key, { version, children: new Map(c.units.map((u) => [u.read.index, version])) });
      }
    const units = unitsOf(q, deltaPlanOf(q), reads, keys, store, true, cmp);
    const checks = mItems(units);
    expect(checks).toHaveLength(2);
    for (const { item } of checks) {
      expect(item.children.map((c) => `${c.kind}/${c.res}`)).toEqual(['use/d', 'use/h']);
      expect(item.absent).toHaveLength(2);
    }
    expect(units.filter((u) => u.items.every((i) => i.kind !== 'M')).map((u) => u.read)).toEqual(
      reads.filter((r) => r.res === 'h' && r.index > cmp),
    );
    // Every day and compacted hour read, repeats and signs included, is counted from its month's item.
    const counted = checks.flatMap(({ item }) =>
      item.children.flatMap((c) => (c.kind === 'use' ? c.reads : [])),
    );
    expect(counted.map(id).sort()).toEqual(
      reads
        .filter((r) => r.res === 'd' || r.index <= cmp)
        .map(id)
        .sort(),
    );
    // Not used on the second round (after a failed check).
    const again = mItems(unitsOf(q, deltaPlanOf(q), reads, keys, store, false, cmp));
    expect(again.every(({ item }) => item.children.every((c) => c.kind === 'record'))).toBe(true);
  });

  it("records a day's compacted hours under the day where its month is not grouped", () => {
    const short = zonePlan('America/New_York', 2);
    const units = unitsOf(q, deltaPlanOf(q), short, keys, fakeStore(), true, cmp);
    const hours = recordsOf(units, 'h');
    expect(recordsOf(units, 'd')).toHaveLength(0);
    expect(hours.length).toBeGreaterThan(0);
    for (const { item, c } of hours) {
      const day = dayOfHour(c.units[0]!.read.index);
      expect(item.key).toBe(keys.section('d', day, 't'));
      expect(item.absent).toContain(keys.stage);
      expect(c.units.length).toBeGreaterThanOrEqual(3);
      expect(c.units.every((u) => dayOfHour(u.read.index) === day && u.read.index <= cmp)).toBe(true);
    }
  });
});
