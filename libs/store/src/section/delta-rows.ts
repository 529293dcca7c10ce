/**
 * Delta hash fields (keys.ts CUBES) as section rows (section/codec.ts): what the sealer folds into a
 * bucket's sections, and what cube-dump reads beside them. Pure. The field format and the policy for a
 * malformed field (it throws, rather than being counted somewhere else) are field-codec.ts's.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { codeField, decodeCode, decodeField, keySetField, totalField } from '../field-codec';
import { code36, cubeSuffix, NO_IDENTITY_PART, shardOf, type Cube } from '../keys';
import { NO_IDENTITY, SECTION_CUBES, SectionRows, type Section, type SectionCube } from './codec';

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
  const identity = cube === 'f' ? (part === NO_IDENTITY_PART ? NO_IDENTITY : decodeCode(part ?? '')) : 0;
  for (const [field, value] of Object.entries(hash)) {
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new Error(`delta field ${field}: bad value ${value}`);
    const { outcome, codes } = decodeField(cube, field);
    rows.add(cube === 'f' ? [identity, ...codes] : codes, outcome, n);
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
    let field: (o: number) => string;
    if (cube === 't') {
      suffix = 't';
      field = totalField;
    } else if (cube === 'f') {
      const identity = dims[0]![r]!;
      suffix = cubeSuffix('f', identity === NO_IDENTITY ? NO_IDENTITY_PART : code36(identity));
      const [key, set] = [code36(dims[1]![r]!), code36(dims[2]![r]!)];
      field = (o) => keySetField(key, set, o);
    } else {
      const code = dims[0]![r]!;
      suffix = cubeSuffix(cube, shardOf(code));
      const text = code36(code);
      field = (o) => codeField(text, o);
    }
    for (let o = 0; o < OUTCOME_COUNT; o++) {
      const n = counts[r * OUTCOME_COUNT + o]!;
      if (n !== 0) fn(suffix, field(o), n);
    }
  }
}
