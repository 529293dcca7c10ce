/**
 * The oracle: the answer to a query computed the plainest way, straight
 * from the raw events and docs/api.md's words. It shares only matchesFilters, the time
 * arithmetic and the row-cap wording with the production path (libs/core buildRows over
 * stored counters), so that tests comparing the two catch bugs in either. Clarity over
 * speed: it builds every row, sorts them all, and keys maps with JSON.
 */
import {
  OUTCOME_FIELDS,
  OUTCOMES,
  outcomeCounts,
  type Datapoint,
  type FieldError,
  type HourGranularity,
} from '@va/contracts';
import type { VerificationEvent } from '@va/contracts';
import { matchesFilters } from '../filters';
import { overRowCap, rowCapError } from '../rows/cap';
import {
  firstHourOfSlice,
  isUtc,
  midHourEdges,
  sliceIndexAt,
  sliceIndexOfHour,
  sliceStartAt,
  sliceStartOf,
  sliceStartsIn,
} from '../calendar';
import { precisionHeader, type XPrecision } from '../precision';
import {
  dayOfHour,
  HOUR_MS,
  hourOf,
  hourStart,
  hoursOfMonth,
  keptAt,
  minuteOf,
  minuteStart,
  monthOfHour,
} from '../time';
import type { Identity, ParsedQuery } from '../types';
import type { Retention } from '../time';
import { retentionModel } from './retention';

export interface OracleOptions {
  now: number;
  maxRows: number;
  /**
   * Model retention at `now` (docs/api.md#retention): hours past the hour retention answered by rollups, and
   * minutes past the minute retention by nothing. Absent: every event is still held at hour (minute) precision.
   */
  retention?: Retention;
}

export type OracleResult =
  | {
      ok: true;
      rows: Datapoint[];
      precision: HourGranularity;
      /** The header X-Precision the answer must carry (precision.ts); absent: none. */
      xPrecision?: XPrecision;
    }
  | { ok: false; error: FieldError };

/** The grouped dimensions of one row (only those the query groups by are set). */
interface GroupValues {
  keyId?: string;
  identity?: Identity;
  tag?: string;
  tags?: string[];
  region?: string;
}

interface Counted {
  group: GroupValues;
  /** The group as JSON: the key of its rows. */
  groupKey: string;
  hour: number;
  /** Start of the slice the counts go to (undefined without a time granularity). */
  time: number | undefined;
  outcome: (typeof OUTCOMES)[number];
}

export function oracle(
  events: readonly VerificationEvent[],
  query: ParsedQuery,
  options: OracleOptions,
): OracleResult {
  const range = { startHour: query.startHour, endHour: query.endHour };
  const minutes = query.minutes; // groupBy=minute: its own buckets, never a rollup (docs/api.md#minute-slices)
  const model =
    options.retention && !minutes ? retentionModel(options.now, options.retention, range) : undefined;
  const ofApi = events.filter((e) => e.apiId === query.apiId);
  const slices = slicing(query);
  // docs/api.md#time-zones: an hour whose minutes are all still kept (where minutes are kept at all)
  // counts each event at its instant; an older one counts whole at its start, in the slice holding it
  // (X-Precision: hour where a slice edge falls inside it).
  const { retention, now } = options;
  const splitByMinutes = (h: number) =>
    !retention ||
    ((retention.minuteMs ?? 0) > 0 && keptAt('n', h * 60, retention, now) && keptAt('h', h, retention, now));

  // 1. Every (event, group) pair that counts, at the hour where it shows up.
  const counted: Counted[] = [];
  for (const event of ofApi) {
    const hour = hourOf(event.time);
    let shownAt: number | null;
    let byRollup = false;
    if (minutes) {
      const n = minuteOf(event.time);
      const kept = !options.retention || keptAt('n', n, options.retention, options.now);
      shownAt = n >= minutes.start && n <= minutes.end && kept ? hour : null;
    } else if (model) {
      const answer = model.answer(hour);
      shownAt = answer?.hour ?? null;
      byRollup = answer !== null && answer.resolution !== 'hour';
    } else
      shownAt =
        (query.startHour === undefined || hour >= query.startHour) && hour <= query.endHour ? hour : null;
    if (shownAt === null) continue;
    const dims = {
      keyId: event.keyId,
      identity: event.identity,
      tags: event.tags ?? [],
      region: regionOf(event),
    };
    if (!matchesFilters(query, dims)) continue;
    for (const group of groupsOf(event, query))
      counted.push({
        group,
        groupKey: JSON.stringify(group),
        hour: shownAt,
        time: byRollup
          ? slices.ofRollup(shownAt)
          : slices.ofInstant(minutes || splitByMinutes(hour) ? event.time : hourStart(hour)),
        outcome: event.outcome,
      });
  }

  // 2. The slices: from the slice of start (or the first slice counting something) to the slice of end.
  const granularity = query.groupBy.granularity;
  const firstTime = minimum(counted.map((c) => c.time ?? Infinity));
  let sliceTimes: (number | undefined)[];
  if (!granularity) sliceTimes = [undefined];
  else if (minutes)
    sliceTimes = Array.from({ length: Math.max(0, minutes.end - minutes.start + 1) }, (_, i) =>
      minuteStart(minutes.start + i),
    );
  else if (query.startHour !== undefined)
    sliceTimes = sliceStartsIn(query.startHour, query.endHour, granularity, slices.zone);
  else if (!Number.isFinite(firstTime))
    sliceTimes = []; // no start and nothing counted
  else {
    const first = firstHourOfSlice(
      sliceIndexAt(firstTime, granularity, slices.zone),
      granularity,
      slices.zone,
    );
    sliceTimes = sliceStartsIn(first, query.endHour, granularity, slices.zone);
  }

  // The rows end with the slice holding the start of end's hour: the instants of that hour after a slice
  // edge inside it belong to a slice that is not a row, and count nowhere.
  const lastTime = sliceTimes.at(-1);
  const shown = counted.filter((c) => c.time === undefined || lastTime === undefined || c.time <= lastTime);

  // 3. The groups: those with a counted event; without group dimensions, the one empty group.
  const groups = new Map<string, GroupValues>();
  if (!hasGroupDimension(query)) groups.set(JSON.stringify({}), {});
  for (const c of shown) groups.set(c.groupKey, c.group);

  // 4. Every group x slice row, zeros included, then the counts added in. Past the row cap the answer is
  // the refusal, whatever the rows hold: they are not built.
  const rowCount = groups.size * sliceTimes.length;
  if (overRowCap(rowCount, query.limit, options.maxRows)) {
    return { ok: false, error: rowCapError(rowCount, options.maxRows) };
  }
  const rows = new Map<string, Datapoint>();
  for (const [groupKey, group] of groups) {
    for (const time of sliceTimes) rows.set(`${time}|${groupKey}`, emptyRow(time, group));
  }
  for (const c of shown) {
    const row = rows.get(`${c.time}|${c.groupKey}`);
    if (!row) throw new Error('oracle: a counted event fell outside every slice');
    row[OUTCOME_FIELDS[OUTCOMES.indexOf(c.outcome)]!] += 1;
    row.total += 1;
  }

  // 5. Order, limit.
  const ordered = [...rows.values()].sort(rowComparator(query));
  const firstEventHour = minimum(ofApi.map((e) => hourOf(e.time)));
  const precision =
    model && granularity !== 'minute'
      ? model.precision(granularity, firstEventHour, slices.inOneSlice)
      : 'hour';
  // Without a start the range begins in the month of the first data (as the query service reads it).
  const from =
    query.startHour ??
    (Number.isFinite(firstEventHour) ? hoursOfMonth(monthOfHour(firstEventHour))[0] : query.endHour + 1);
  const edges =
    !granularity ||
    midHourEdges(from, query.endHour, granularity, slices.zone).every((edge) => splitByMinutes(hourOf(edge)));
  const xPrecision = precisionHeader(precision, edges);
  const kept = ordered.slice(0, query.limit ?? ordered.length);
  return { ok: true, rows: kept, precision, ...(xPrecision !== null && { xPrecision }) };
}

/**
 * The slices of a query as docs/api.md#time-zones says, straight from the calendar: an event
 * counts in the local day or month holding its instant; a rollup answering hours past the hour
 * retention counts whole in the local day (month) of the same date as its first hour in the range
 * (an hour under groupBy=hour: the UTC hours), kept within the range's slices. `zone` is set only
 * when the zone matters: day or month slices, not UTC.
 */
function slicing(query: ParsedQuery) {
  const g = query.groupBy.granularity;
  const zone = (g === 'day' || g === 'month') && !isUtc(query.timeZone) ? query.timeZone : undefined;
  const rollupIndex = (anchor: number): number => {
    if (!g || !zone) return g ? sliceIndexOfHour(anchor, g) : 0;
    const date = g === 'day' ? dayOfHour(anchor) : monthOfHour(anchor);
    const first = query.startHour === undefined ? -Infinity : sliceIndexOfHour(query.startHour, g, zone);
    return Math.max(first, Math.min(sliceIndexOfHour(query.endHour, g, zone), date));
  };
  return {
    zone,
    ofInstant: (ms: number) => (g ? sliceStartAt(ms, g, zone) : undefined),
    /** `anchor`: the rollup's first hour, clipped to the start. */
    ofRollup: (anchor: number) => (g ? sliceStartOf(rollupIndex(anchor), g, zone) : undefined),
    /** Whether the instants of the hours [first, last] all lie in the slice their rollup counts in. */
    inOneSlice:
      g && zone
        ? (first: number, last: number) => {
            const i = rollupIndex(Math.max(first, query.startHour ?? first));
            return (
              sliceStartOf(i, g, zone) <= first * HOUR_MS &&
              (last + 1) * HOUR_MS <= sliceStartOf(i + 1, g, zone)
            );
          }
        : undefined,
  };
}

/** Infinity for none; no spread (argument lists have a length limit). */
const minimum = (values: number[]) => values.reduce((min, v) => Math.min(min, v), Infinity);

const hasGroupDimension = (q: ParsedQuery) =>
  q.groupBy.key || q.groupBy.identity || q.groupBy.tag || q.groupBy.tags || q.groupBy.region === true;

/** docs/api.md#grouping: an empty region is no region. */
const regionOf = (event: VerificationEvent): string | undefined =>
  event.region === undefined || event.region === '' ? undefined : event.region;

/** The rows an event counts in (docs/api.md#grouping); tags are a set. */
function groupsOf(event: VerificationEvent, query: ParsedQuery): GroupValues[] {
  const by = query.groupBy;
  const base: GroupValues = {};
  if (by.key) base.keyId = event.keyId;
  if (by.identity) {
    if (!event.identity) return []; // events without identity are left out
    base.identity = { id: event.identity.id, externalId: event.identity.externalId };
  }
  if (by.region) {
    const region = regionOf(event);
    if (region === undefined) return []; // events without a region are left out
    base.region = region;
  }
  const tagSet = [...new Set(event.tags ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (by.tag) return tagSet.map((tag) => ({ ...base, tag })); // untagged: no row
  if (by.tags) return [{ ...base, tags: tagSet }];
  return [base];
}

function emptyRow(time: number | undefined, group: GroupValues): Datapoint {
  return {
    ...(time !== undefined && { time }),
    ...outcomeCounts(),
    total: 0,
    ...(group.keyId !== undefined && { keyId: group.keyId }),
    ...(group.identity !== undefined && { identity: { ...group.identity } }),
    ...(group.tag !== undefined && { tag: group.tag }),
    ...(group.tags !== undefined && { tags: [...group.tags] }),
    ...(group.region !== undefined && { region: group.region }),
  };
}

function compareText(a: string | undefined, b: string | undefined): number {
  if (a === b || a === undefined || b === undefined) return 0;
  return a < b ? -1 : 1; // UTF-16 code units, as JS `<` does; never localeCompare
}

/** docs/api.md#order-and-limit: time, keyId, identity id, tag, tags joined with ',', region. */
function defaultOrder(a: Datapoint, b: Datapoint): number {
  return (
    (a.time ?? 0) - (b.time ?? 0) ||
    compareText(a.keyId, b.keyId) ||
    compareText(a.identity?.id, b.identity?.id) ||
    compareText(a.identity?.externalId, b.identity?.externalId) ||
    compareText(a.tag, b.tag) ||
    compareText(a.tags?.join(','), b.tags?.join(',')) ||
    compareText(a.region, b.region)
  );
}

function rowComparator(query: ParsedQuery): (a: Datapoint, b: Datapoint) => number {
  const sign = query.order === 'desc' ? -1 : 1;
  const field = query.orderBy;
  if (field === undefined) return (a, b) => sign * defaultOrder(a, b);
  return (a, b) => sign * ((a[field] ?? 0) - (b[field] ?? 0)) || defaultOrder(a, b);
}
