/**
 * Sealed tag-set sections seen through a query's single grouped value (pure; docs/store-v2.md
 * "Projected sections").
 *
 * A query grouped by `tag` alone, or by `region` alone, with no filter, reads the tag-set cube `s`:
 * its rows are tag-set codes (a tag set and a region, dictionary-values.ts), thousands of them for a
 * tenant with many tag combinations, while the answer has one row per tag or per region (a few
 * dozen). Summing every code and handing each to buildRows as a cell was most of such a query's
 * work. A sealed section is immutable under its version, and a code's tag set and region never
 * change (dictionaries are append-only), so the section's rows summed per tag (per region) are a
 * pure function of the section object and the dictionary: computed once per section the reader
 * holds (memoized by the section object itself, which the section cache replaces when the version
 * changes), then added per request as a few dozen rows.
 *
 * The answer is the same: under groupBy=tag a cell counts once in each distinct tag of its set, and a
 * projected row of tag T holds exactly the counts of the cells containing T; under groupBy=region a
 * cell counts in its region, or nowhere without one, as a projected row does. Delta and sealing hashes
 * are not projected: their cells go the usual way and buildRows adds both kinds into the same groups.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import type { Cell } from '@va/core';
import type { Sign } from '../read-fields';
import type { SectionView } from '../read-sections';

export type ProjectionKind = 'tag' | 'region';

/** How the codes of a query's tag-set cube map to its groups (ReadDictionaries.projection). */
export interface Projection {
  kind: ProjectionKind;
  /**
   * Changes whenever the code-to-value mapping may have (another dictionary object, or a reload after
   * Redis lost entries): a projection memoized under another epoch is made again.
   */
  epoch: object;
  /** The groups a tag-set code counts in: its distinct tags, or its region ([] without); undefined: not loaded. */
  groupsOf(code: number): readonly string[] | undefined;
}

/** A section's counts per group: `counts` holds OUTCOME_COUNT numbers per name, in names' order. */
export interface Projected {
  names: readonly string[];
  counts: Float64Array;
}

const memo = new WeakMap<SectionView, Map<ProjectionKind, { epoch: object; value: Projected }>>();

/**
 * The section's rows summed per group of `p`, memoized per section object; undefined when a code of
 * the section is not in the loaded dictionary (the caller then sums the section as it is).
 */
export function projectedOf(section: SectionView, p: Projection): Projected | undefined {
  let byKind = memo.get(section);
  const held = byKind?.get(p.kind);
  if (held?.epoch === p.epoch) return held.value;
  const value = projectSection(section, p);
  if (value === undefined) return undefined;
  if (!byKind) {
    byKind = new Map();
    memo.set(section, byKind);
  }
  byKind.set(p.kind, { epoch: p.epoch, value });
  return value;
}

/** projectedOf without the memo: every row of a one-dimension tag-set section added to each of its groups. */
export function projectSection(section: SectionView, p: Projection): Projected | undefined {
  if (section.cube !== 's') throw new Error(`a projection reads tag-set sections, not ${section.cube}`);
  const codes = section.dims[0]!;
  const at = new Map<string, number>();
  const names: string[] = [];
  let sums = new Float64Array(8 * OUTCOME_COUNT);
  for (let r = 0; r < section.rows; r++) {
    const groups = p.groupsOf(codes[r]!);
    if (groups === undefined) return undefined;
    for (let g = 0; g < groups.length; g++) {
      const name = groups[g]!;
      if (g > 0 && name === groups[g - 1]) continue; // a sorted set counts each tag once
      let n = at.get(name);
      if (n === undefined) {
        n = names.length;
        at.set(name, n);
        names.push(name);
        if ((n + 1) * OUTCOME_COUNT > sums.length) {
          const wider = new Float64Array(sums.length * 2);
          wider.set(sums);
          sums = wider;
        }
      }
      const into = n * OUTCOME_COUNT;
      const from = r * OUTCOME_COUNT;
      for (let o = 0; o < OUTCOME_COUNT; o++) sums[into + o]! += section.counts[from + o]!;
    }
  }
  return { names, counts: sums.slice(0, names.length * OUTCOME_COUNT) };
}

/** Projected sections summed per slice and group, handed over as cells (one per slice and group). */
export class ProjectedSums {
  private readonly slices = new Map<number | null, Map<string, number[]>>();

  constructor(private readonly kind: ProjectionKind) {}

  add(slice: number | null, projected: Projected, sign: Sign): void {
    let groups = this.slices.get(slice);
    if (!groups) {
      groups = new Map();
      this.slices.set(slice, groups);
    }
    const { names, counts } = projected;
    for (let n = 0; n < names.length; n++) {
      let row = groups.get(names[n]!);
      if (!row) {
        row = new Array<number>(OUTCOME_COUNT).fill(0);
        groups.set(names[n]!, row);
      }
      for (let o = 0; o < OUTCOME_COUNT; o++) row[o]! += sign * counts[n * OUTCOME_COUNT + o]!;
    }
  }

  /** The sums as cells: a tag's as a cell of the one-tag set, a region's as a cell of that region. */
  cells(): Cell[] {
    const out: Cell[] = [];
    for (const [slice, groups] of this.slices) {
      for (const [name, counts] of groups) {
        out.push(this.kind === 'tag' ? { slice, counts, tags: [name] } : { slice, counts, region: name });
      }
    }
    return out;
  }
}
