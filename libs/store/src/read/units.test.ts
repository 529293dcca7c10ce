import { describe, expect, it } from 'vitest';
import { dayOfHour, hourOf, planReads, type BucketRead } from '@va/core';
import { apiKeys } from '../keys';
import type { RollupChildren } from '../rollup-children';
import type { SectionView } from '../read-sections';
import type { CachedSection, SectionStore } from '../section-cache';
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
  };
}

describe("read units: a day's hours as one (#43, rollup-children.ts)", () => {
  const cmp = nowHour - 1;
  const reads = zonePlan('America/New_York', 30);
  const hourRecords = (units: Unit[]) =>
    units.flatMap((u) =>
      u.items.flatMap((item) => (item.kind === 'M' && item.children.res === 'h' ? [item] : [])),
    );

  it("reads each day's compacted hours with an M item in one family, to record them", () => {
    const units = unitsOf(q, deltaPlanOf(q), reads, keys, fakeStore(), true, cmp);
    const records = hourRecords(units);
    const days = new Set(reads.filter((r) => r.res === 'h' && r.index <= cmp).map((r) => dayOfHour(r.index)));
    expect(records).toHaveLength(days.size);
    for (const item of records) {
      if (item.children.kind !== 'record') throw new Error('recorded with an empty cache');
      const hours = item.children.units;
      expect(hours.length).toBeGreaterThanOrEqual(3);
      expect(item.absent).toContain(keys.stage);
      expect(hours.every((u) => u.read.res === 'h' && u.read.index <= cmp)).toBe(true);
    }
    // However small the bound, a day's hours, its M item and the rollups around them share a call.
    const chunks = chunksOf(units, reads, 1);
    for (const item of records) {
      if (item.children.kind !== 'record') continue;
      const [first] = item.children.units;
      const chunk = chunks.find((c) => c.includes(first!))!;
      expect(item.children.units.every((u) => chunk.includes(u))).toBe(true);
      expect(chunk.some((u) => u.items.includes(item))).toBe(true);
      const day = dayOfHour(first!.read.index);
      const dayUnit = units.find((u) => u.read.res === 'd' && u.read.index === day);
      if (dayUnit) expect(chunk).toContain(dayUnit);
      else expect(reads.some((r) => r.res === 'd' && r.index === day)).toBe(false);
    }
  });

  it('reads no compacted hour once its day recorded them and the cache holds their sections', () => {
    const store = fakeStore();
    const version = Buffer.alloc(8, 1);
    const section = {} as SectionView;
    for (const r of reads) {
      if (r.res !== 'h') continue;
      store.sections.set(keys.section('h', r.index, 't'), { version, section });
    }
    for (const item of hourRecords(unitsOf(q, deltaPlanOf(q), reads, keys, store, true, cmp))) {
      if (item.children.kind !== 'record') continue;
      const children = new Map(item.children.units.map((u) => [u.read.index, version]));
      store.records.set(item.children.key, { version, children });
    }
    const units = unitsOf(q, deltaPlanOf(q), reads, keys, store, true, cmp);
    expect(units.filter((u) => u.read.res === 'h' && !u.items.some((i) => i.kind === 'M'))).toEqual(
      units.filter((u) => u.read.res === 'h' && u.read.index > cmp),
    );
    const uses = hourRecords(units).filter((item) => item.children.kind === 'use');
    expect(uses.length).toBeGreaterThanOrEqual(30);
    // Every hour read, repeats and signs included, is counted from its day's item.
    const counted = uses.flatMap((item) => (item.children.kind === 'use' ? item.children.reads : []));
    expect(counted.map(id).sort()).toEqual(
      reads
        .filter((r) => r.res === 'h' && r.index <= cmp)
        .map(id)
        .sort(),
    );
    // Not used on the second round (after a failed check).
    const again = hourRecords(unitsOf(q, deltaPlanOf(q), reads, keys, store, false, cmp));
    expect(again.every((item) => item.children.kind === 'record')).toBe(true);
  });
});
