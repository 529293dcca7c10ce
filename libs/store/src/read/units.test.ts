import { describe, expect, it } from 'vitest';
import { hourOf, planReads, type BucketRead } from '@va/core';
import { apiKeys } from '../keys';
import { cubeQuery } from '../testing/cube-query';
import { deltaPlanOf } from './cube-query';
import { chunksOf, readsOfUnit, unitsOf } from './units';

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
