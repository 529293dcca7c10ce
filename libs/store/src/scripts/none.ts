/**
 * "None" at the Lua boundary: the store's TypeScript API says `null` (no message applied yet, no
 * hour compacted yet); the scripts and the stored values say -1, or nothing. The scripts' argument
 * builders and reply decoders (scripts/*.ts) and the plain reads of the same fields convert here,
 * and nowhere else.
 */

/** An argument to a Lua script: null as -1. */
export const noneArg = (n: number | null): number => (n === null ? -1 : n);

/** A value read back (a reply or a stored field): absent or -1 as null. */
export function noneOf(raw: string | number | null | undefined): number | null {
  if (raw === null || raw === undefined) return null;
  const n = Number(raw);
  return n === -1 ? null : n;
}
