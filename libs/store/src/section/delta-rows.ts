/**
 * Delta hash fields (keys.ts CUBES) as section rows (section/codec.ts): what the sealer folds into a
 * bucket's sections, and what cube-dump reads beside them. Pure. Strict: a field of an unexpected
 * shape is a broken store and throws, rather than being counted somewhere else.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { code36, cubeSuffix, NO_IDENTITY_PART, shardOf, type Cube } from '../keys';
import { NO_IDENTITY, SECTION_CUBES, SectionRows, type Section, type SectionCube } from './codec';

const CODE = /^[0-9a-z]{1,10}$/;

function code(text: string, field: string): number {
  if (!CODE.test(text)) throw new Error(`delta field ${field}: bad code ${text}`);
  return parseInt(text, 36);
}

function outcome(text: string, field: string): number {
  const o = Number(text);
  if (!Number.isInteger(o) || o < 0 || o >= OUTCOME_COUNT || text.length !== 1) {
    throw new Error(`delta field ${field}: bad outcome ${text}`);
  }
  return o;
}

/** Builders for every section cube (x included: the sealer derives it from f). */
export const emptySectionRows = (): Map<SectionCube, SectionRows> =>
  new Map(SECTION_CUBES.map((cube) => [cube, new SectionRows(cube)] as const));

/**
 * Adds one delta hash (suffix as in a parts set: "t", "k:<part>", "f:<identity code or _>") to the
 * builder of its cube. Values are integers (HINCRBY); fields as keys.ts documents them.
 */
export function addDeltaHash(
  into: Map<SectionCube, SectionRows>,
  suffix: string,
  hash: Record<string, string>,
): void {
  const colon = suffix.indexOf(':');
  const cube = (colon < 0 ? suffix : suffix.slice(0, colon)) as Cube;
  const part = colon < 0 ? undefined : suffix.slice(colon + 1);
  const rows = into.get(cube);
  if (!rows || cube === ('x' as Cube)) throw new Error(`delta hash of unknown cube ${suffix}`);
  const identity =
    cube === 'f' ? (part === NO_IDENTITY_PART ? NO_IDENTITY : code(part ?? '', `${suffix} (part)`)) : 0;
  for (const [field, value] of Object.entries(hash)) {
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new Error(`delta field ${field}: bad value ${value}`);
    if (cube === 't') {
      rows.add([], outcome(field, field), n);
      continue;
    }
    const cut = field.lastIndexOf(':');
    if (cut < 0) throw new Error(`delta field ${field} of ${suffix}: no outcome`);
    const o = outcome(field.slice(cut + 1), field);
    const dims = field.slice(0, cut);
    if (cube === 'f') {
      const dot = dims.indexOf('.');
      if (dot < 0) throw new Error(`delta field ${field} of ${suffix}: no tag set`);
      rows.add([identity, code(dims.slice(0, dot), field), code(dims.slice(dot + 1), field)], o, n);
    } else rows.add([code(dims, field)], o, n);
  }
}

/**
 * The delta hash fields holding a section's counts (the inverse of addDeltaHash): fn gets each
 * hash's suffix, a field and its count. For cubes t, k, i, s, f only (x is never a delta).
 */
export function forEachDeltaField(
  section: Section,
  fn: (suffix: string, field: string, n: number) => void,
): void {
  const { cube, rows, dims, counts } = section;
  if (cube === 'x') throw new Error('forEachDeltaField: x has no delta hashes');
  for (let r = 0; r < rows; r++) {
    let suffix: string;
    let head: string;
    if (cube === 't') {
      suffix = 't';
      head = '';
    } else if (cube === 'f') {
      const identity = dims[0]![r]!;
      suffix = cubeSuffix('f', identity === NO_IDENTITY ? NO_IDENTITY_PART : code36(identity));
      head = `${code36(dims[1]![r]!)}.${code36(dims[2]![r]!)}:`;
    } else {
      const code = dims[0]![r]!;
      suffix = cubeSuffix(cube, shardOf(code));
      head = `${code36(code)}:`;
    }
    for (let o = 0; o < OUTCOME_COUNT; o++) {
      const n = counts[r * OUTCOME_COUNT + o]!;
      if (n !== 0) fn(suffix, `${head}${o}`, n);
    }
  }
}
