/**
 * Minutes of a sealed hour read once per version of the hour (docs/store-v2.md "Minutes of a sealed hour").
 *
 * A zone whose midnight falls inside a UTC hour (Asia/Kolkata: 18:30Z) splits that hour by its minute buckets
 * (libs/core edge-minutes.ts): 30 minute hashes per edge, sent whole on every request, the f ones thousands of
 * fields each for the medium tenant. A minute has no version of its own, but its hour has: every write to a
 * minute writes its hour in the same applyApiBatch call (or stages it, the stage list existing meanwhile),
 * and the hour then keeps a delta until a seal gives it a new version. So the minutes of one hour go as one W
 * item with the hour's t section and those keys: Redis sends the minutes only when the hour's version is not
 * the one the kept copies were read with, or the hour has a delta, a seal in progress or a stage.
 *
 * Pure: the minute units of `units` grouped by hour, each group one unit (one call: its minutes are read
 * atomically with each other and with the check).
 */
import { apiKeys, type Cube } from '../keys';
import type { SectionStore } from '../section-cache';
import { readsOfUnit, type Item, type MinuteRead, type Unit } from './units';

const MINUTES_PER_HOUR = 60;

export function groupMinutesByHour(
  units: readonly Unit[],
  keys: ReturnType<typeof apiKeys>,
  cache: SectionStore | undefined,
  cube: Cube,
): Unit[] {
  if (!cache || !units.some((u) => u.read.res === 'n')) return [...units];
  if (cube !== 't' && cube !== 'f') throw new Error(`minute buckets hold no cube ${cube}`);
  const out: Unit[] = [];
  const hours = new Map<number, Unit[]>();
  for (const unit of units) {
    if (unit.read.res !== 'n') {
      out.push(unit);
      continue;
    }
    const hour = Math.floor(unit.read.index / MINUTES_PER_HOUR);
    const group = hours.get(hour);
    if (group) group.push(unit);
    else hours.set(hour, [unit]);
  }
  for (const [hour, group] of hours) {
    const minutes: MinuteRead[] = group.map((unit) => {
      const item = unit.items[0]!;
      if (unit.items.length !== 1 || item.kind !== 'H') throw new Error('a minute unit is one H item');
      return {
        key: item.key,
        index: unit.read.index,
        byPart: item.byPart === true,
        reads: readsOfUnit(unit),
      };
    });
    // The first minute's key names the API, generation and cube; the others are minutes of the same hour.
    const cacheKey = `${minutes[0]!.key}/${group.map((u) => `${u.read.index}`).join(',')}`;
    out.push({
      read: group[0]!.read,
      weight: 1 + group.reduce((sum, unit) => sum + unit.weight, 0),
      items: [
        {
          kind: 'W',
          key: keys.section('h', hour, 't'),
          absent: [keys.parts('h', hour), keys.sealingParts('h', hour), keys.stage],
          cube,
          minutes,
          cacheKey,
          held: cache.minutes(cacheKey),
        },
      ],
    });
  }
  return out;
}

/**
 * The minute texts of a W item from its reply: the kept copies when Redis confirmed them (1), else the texts
 * it sent, kept under the hour's version when it gave one.
 */
export function minuteHourTexts(
  item: Extract<Item, { kind: 'W' }>,
  reply: unknown,
  cache: SectionStore,
): readonly string[] {
  if (reply === 1) {
    if (!item.held) throw new Error('readBuckets: a W item confirmed copies it was not sent');
    cache.minuteHourHit();
    return item.held.texts;
  }
  const [version, ...sent] = reply as Buffer[];
  const texts = sent.map((text) => text.toString('latin1'));
  if (version && version.length > 0) cache.setMinutes(item.cacheKey, { version, texts });
  return texts;
}
