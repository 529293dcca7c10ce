/**
 * Summing counter fields read from cube hashes (keys.ts, CUBES) into per-slice groups of
 * dictionary codes (pure, no I/O). The field format and the policy for a malformed field (it
 * throws) are field-codec.ts's.
 *
 * A group is named by the codes of the dimensions the query groups by, as
 * `<key>.<identity>.<set>` with "" for a dimension it does not group by.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { counterValue, topThreshold, type TopGroups } from '@va/core';
import { codeField, digit36, MalformedFieldError, readFieldText, totalField } from './field-codec';
import { code36, NO_IDENTITY_PART, type Cube } from './keys';

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

  /**
   * Adds the counts of another read, of any cube (group names are the same codes in every cube): the
   * query service's minute reads of cube f beside hour reads of another cube (libs/core edge-minutes.ts).
   */
  add(other: CodeCounts): void {
    for (const [start, groups] of other.slices) {
      const into = this.slice(start);
      for (const [group, counts] of groups) {
        for (let o = 0; o < OUTCOME_COUNT; o++) bump(into, group, o, counts[o] ?? 0);
      }
    }
  }

  /**
   * Drops the groups that cannot be among the first rows of a top-N query (libs/core topGroupsOf):
   * those whose counter is below the limit-th largest of their slice. Ties stay.
   */
  keepLargest(top: TopGroups): void {
    for (const groups of this.slices.values()) {
      const values = Float64Array.from(groups.values(), (counts) => counterValue(counts, top.counter));
      const threshold = topThreshold(values, top.limit);
      let n = 0;
      for (const group of groups.keys()) if (values[n++]! < threshold) groups.delete(group);
    }
  }
}

/** sign -1 subtracts: the planner's `subtract` reads take hours back out of a rollup (planner.ts). */
export type Sign = 1 | -1;

/** Adds n (already signed; 0 still creates the group) to one outcome of a group. */
function bump(into: SliceCounts, group: string, outcome: number, n: number): void {
  let counts = into.get(group);
  if (!counts) {
    counts = new Array<number>(OUTCOME_COUNT).fill(0);
    into.set(group, counts);
  }
  counts[outcome]! += n;
}

/**
 * Adds the count n (signed; 0 still creates the group) of one field of a cube hash. `part` is
 * the hash's part (only read for f: the identity code or "_"). Fields that the filters exclude
 * are skipped; a malformed field throws (field-codec.ts).
 */
export function addCount(
  into: SliceCounts,
  sel: CodeSelection,
  part: string,
  field: string,
  n: number,
): void {
  const { outcome, first, second } = readFieldText(sel.cube, field);
  const { group } = sel;
  switch (sel.cube) {
    case 't':
      bump(into, '..', outcome, n);
      return;
    case 'k':
      if (sel.keys && !sel.keys.has(first)) return;
      bump(into, group.key ? `${first}..` : '..', outcome, n);
      return;
    case 'i':
      if (sel.identities && !sel.identities.has(first)) return;
      bump(into, group.identity ? `.${first}.` : '..', outcome, n);
      return;
    case 's':
      if (sel.sets && !sel.sets.has(first)) return;
      bump(into, group.set ? `..${first}` : '..', outcome, n);
      return;
    case 'f':
      if (sel.keys && !sel.keys.has(first)) return;
      if (sel.sets && !sel.sets.has(second)) return;
      if (group.identity && part === NO_IDENTITY_PART) return;
      bump(
        into,
        `${group.key ? first : ''}.${group.identity ? part : ''}.${group.set ? second : ''}`,
        outcome,
        n,
      );
      return;
  }
}

/** The codes (numbers) of a group name: [key, identity, set], undefined where not grouped. */
export function groupCodes(group: string): [number | undefined, number | undefined, number | undefined] {
  const first = group.indexOf('.');
  const second = group.indexOf('.', first + 1);
  if (first < 0 || second < 0) throw new Error(`not a group name: ${group}`);
  return [codeAt(group, 0, first), codeAt(group, first + 1, second), codeAt(group, second + 1, group.length)];
}

/**
 * parseInt(group.slice(from, to), 36), undefined when empty: read digit by digit, without the
 * substrings (a query by tag names thousands of groups, and decodeCells reads every name).
 */
function codeAt(group: string, from: number, to: number): number | undefined {
  if (from === to) return undefined;
  let code = 0;
  for (let p = from; p < to; p++) {
    const d = digit36(group.charCodeAt(p));
    if (d < 0) return parseInt(group.slice(from, to), 36); // not one of our codes: as before
    code = code * 36 + d;
  }
  return code;
}

/**
 * Longest base-36 code FieldSums sums by number (36^7 * 9 is well below 2^53); longer ones go by
 * name, and field-codec.ts reads them in addCount.
 */
const FAST_CODE_DIGITS = 7;

/**
 * Per-field sums over the hashes of one group (a slice, and a part in cube f), fed with the
 * texts of readBuckets.lua's H items ("field value field value ..."). Fields of the canonical
 * forms "<code>:<o>" (k, i, s, code of at most FAST_CODE_DIGITS) and "<o>" (t) are summed under
 * the number code * 9 + o, without making a string per field; any other field (cube f, a longer
 * code, or a malformed field) by name. `addTo` then hands every summed field to addCount once,
 * so that the result is the one of addCount over every field of every hash, and a malformed
 * field throws there (field-codec.ts).
 */
export class FieldSums {
  private readonly byCode = new Map<number, number>();
  private readonly byName = new Map<string, number>();

  constructor(private readonly cube: Cube) {}

  /** Adds one hash as text, times sign (-1: a subtract read). */
  addText(text: string, sign: Sign): void {
    const length = text.length;
    const cube = this.cube;
    let at = 0;
    while (at < length) {
      const space = text.indexOf(' ', at);
      if (space < 0) throw new MalformedFieldError(text.slice(at), 'a field without a value');
      let end = space + 1;
      const negative = text.charCodeAt(end) === 45; /* - */
      if (negative) end++;
      const first = end;
      let n = 0;
      for (let ch = text.charCodeAt(end); ch >= 48 && ch <= 57; ch = text.charCodeAt(++end))
        n = n * 10 + ch - 48;
      if (end === first || (end < length && text.charCodeAt(end) !== 32)) {
        throw new MalformedFieldError(text.slice(at, space), 'a value that is not an integer');
      }
      const value = negative ? -sign * n : sign * n;
      let index = -1;
      if (cube === 't') {
        const o = text.charCodeAt(at) - 48;
        if (space - at === 1 && o >= 0 && o < OUTCOME_COUNT) index = o;
      } else if (cube !== 'f') {
        const colon = space - 2;
        const digits = colon - at;
        const o = text.charCodeAt(space - 1) - 48;
        // No leading zero: "01" is not the code 1 (it goes by name, and addCount throws on it).
        if (
          digits > 0 &&
          digits <= FAST_CODE_DIGITS &&
          text.charCodeAt(colon) === 58 /* : */ &&
          o >= 0 &&
          o < OUTCOME_COUNT &&
          (digits === 1 || text.charCodeAt(at) !== 48)
        ) {
          let code = 0;
          for (let p = at; p < colon; p++) {
            const d = digit36(text.charCodeAt(p));
            if (d < 0) {
              code = -1;
              break;
            }
            code = code * 36 + d;
          }
          if (code >= 0) index = code * OUTCOME_COUNT + o;
        }
      }
      if (index >= 0) this.byCode.set(index, (this.byCode.get(index) ?? 0) + value);
      else {
        const field = text.slice(at, space);
        this.byName.set(field, (this.byName.get(field) ?? 0) + value);
      }
      at = end + 1;
    }
  }

  /** Adds every summed field into `into` (addCount: filters, group names). */
  addTo(into: SliceCounts, sel: CodeSelection, part: string): void {
    for (const [index, n] of this.byCode) {
      const o = index % OUTCOME_COUNT;
      const field = this.cube === 't' ? totalField(o) : codeField(code36((index - o) / OUTCOME_COUNT), o);
      addCount(into, sel, part, field, n);
    }
    for (const [field, n] of this.byName) addCount(into, sel, part, field, n);
  }
}
