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
