/** Option-argument parsers for commander: each validates one value or throws InvalidArgumentError. */
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { IDENTIFIER_PATTERN } from '@va/contracts';

const identifierRe = new RegExp(IDENTIFIER_PATTERN);

/** workspaceId, apiId, ...: 1-255 of A-Z a-z 0-9 _ - . : */
export function identifier(value: string): string {
  if (!identifierRe.test(value)) throw new InvalidArgumentError('expected 1-255 of A-Z a-z 0-9 _ - . :');
  return value;
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < 0)
    throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

export function positiveInt(value: string): number {
  const n = nonNegativeInt(value);
  if (n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

/** For a repeatable option: every occurrence adds its value. */
export function collect<T>(parse: (value: string) => T) {
  return (value: string, previous: T[] | undefined): T[] => [...(previous ?? []), parse(value)];
}

/** unix ms, or an ISO 8601 date/time (`2026-03-01`, `2026-03-01T10:00Z`). */
export function time(value: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new InvalidArgumentError('expected unix ms or an ISO 8601 time');
  return ms;
}

/** A list option: repeatable, and each value may hold several items separated by commas. */
export function commaList<T = string>(parse: (value: string) => T = (v) => v as T) {
  return (value: string, previous: T[] | undefined): T[] => [
    ...(previous ?? []),
    ...value.split(',').map(parse),
  ];
}

/** One of a fixed set of words. */
export function oneOf<T extends string>(allowed: readonly T[]) {
  return (value: string): T => {
    if (!(allowed as readonly string[]).includes(value))
      throw new InvalidArgumentError(`expected one of ${allowed.join(', ')}`);
    return value as T;
  };
}
