/**
 * Summing counter fields read from cube hashes (keys.ts, CUBES) into per-slice groups of
 * dictionary codes (pure, no I/O). A field is `<o>` (t) or `<dims>:<o>` with a one-digit
 * outcome code o; dims are base-36 codes: "<key>" (k), "<identity>" (i), "<set>" (s),
 * "<key>.<set>" (f, whose identity is the hash's part, "_" without identity).
 *
 * A group is named by the codes of the dimensions the query groups by, as
 * `<key>.<identity>.<set>` with "" for a dimension it does not group by.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { NO_IDENTITY_PART, type Cube } from './keys';

export interface CodeSelection {
  cube: Cube;
  /** Base-36 codes the filters allow per dimension; null = no filter on that dimension. */
  keys: ReadonlySet<string> | null;
  identities: ReadonlySet<string> | null;
  sets: ReadonlySet<string> | null;
  /** Dimensions kept in the group name. `set` for groupBy tag and tags. */
  group: { key: boolean; identity: boolean; set: boolean };
}

/** Counts per group name, for one slice. */
export type SliceCounts = Map<string, number[]>;

/** Counts per slice start (null without a time granularity) and group name. */
export class CodeCounts {
  readonly slices = new Map<number | null, SliceCounts>();

  slice(start: number | null): SliceCounts {
    let counts = this.slices.get(start);
    if (!counts) {
      counts = new Map();
      this.slices.set(start, counts);
    }
    return counts;
  }
}

/** sign -1 subtracts: the planner's `subtract` reads take hours back out of a rollup (planner.ts). */
export type Sign = 1 | -1;

function add(
  into: SliceCounts,
  group: string,
  outcome: number,
  value: string | null | undefined,
  sign: Sign,
): void {
  if (value === null || value === undefined || outcome < 0 || outcome >= OUTCOME_COUNT) return;
  const n = Number(value);
  if (!(n > 0)) return;
  let counts = into.get(group);
  if (!counts) {
    counts = new Array<number>(OUTCOME_COUNT).fill(0);
    into.set(group, counts);
  }
  counts[outcome]! += sign * n;
}

/**
 * Adds one field of a cube hash. `part` is the hash's part (only read for f: the identity
 * code or "_"). Fields that the filters exclude are skipped.
 */
export function addField(
  into: SliceCounts,
  sel: CodeSelection,
  part: string,
  field: string,
  value: string | null | undefined,
  sign: Sign = 1,
): void {
  if (sel.cube === 't') {
    if (field.length === 1) add(into, '..', field.charCodeAt(0) - 48, value, sign);
    return;
  }
  const end = field.length - 2;
  if (end < 0 || field.charCodeAt(end) !== 58 /* ':' */) return;
  const outcome = field.charCodeAt(end + 1) - 48;
  const { group } = sel;
  switch (sel.cube) {
    case 'k': {
      const key = field.slice(0, end);
      if (sel.keys && !sel.keys.has(key)) return;
      add(into, group.key ? `${key}..` : '..', outcome, value, sign);
      return;
    }
    case 'i': {
      const identity = field.slice(0, end);
      if (sel.identities && !sel.identities.has(identity)) return;
      add(into, group.identity ? `.${identity}.` : '..', outcome, value, sign);
      return;
    }
    case 's': {
      const set = field.slice(0, end);
      if (sel.sets && !sel.sets.has(set)) return;
      add(into, group.set ? `..${set}` : '..', outcome, value, sign);
      return;
    }
    case 'f': {
      const dot = field.indexOf('.');
      if (dot < 0 || dot > end) return;
      const key = field.slice(0, dot);
      const set = field.slice(dot + 1, end);
      if (sel.keys && !sel.keys.has(key)) return;
      if (sel.sets && !sel.sets.has(set)) return;
      if (group.identity && part === NO_IDENTITY_PART) return;
      add(
        into,
        `${group.key ? key : ''}.${group.identity ? part : ''}.${group.set ? set : ''}`,
        outcome,
        value,
        sign,
      );
      return;
    }
  }
}

/** Adds every field of a hash (HGETALL reply). */
export function addHash(
  into: SliceCounts,
  sel: CodeSelection,
  part: string,
  hash: Record<string, string>,
  sign: Sign = 1,
): void {
  for (const field in hash) addField(into, sel, part, field, hash[field], sign);
}

/** Adds the reply of an HMGET of `fields` (values in the same order; null = absent). */
export function addFieldValues(
  into: SliceCounts,
  sel: CodeSelection,
  part: string,
  fields: readonly string[],
  values: readonly (string | null)[],
  sign: Sign = 1,
): void {
  for (let n = 0; n < fields.length; n++) addField(into, sel, part, fields[n]!, values[n], sign);
}

/** The codes (numbers) of a group name: [key, identity, set], undefined where not grouped. */
export function groupCodes(group: string): [number | undefined, number | undefined, number | undefined] {
  const first = group.indexOf('.');
  const second = group.indexOf('.', first + 1);
  const code = (text: string) => (text === '' ? undefined : parseInt(text, 36));
  return [code(group.slice(0, first)), code(group.slice(first + 1, second)), code(group.slice(second + 1))];
}
