import { expect } from 'vitest';

/**
 * `expect(actual, message).toEqual(expected)` for large answers made of JSON data (thousands of rows).
 * Two values that serialise to the same JSON are equal, and finding that costs two JSON.stringify
 * calls, where vitest's deep equality took ~9.5 s of the e2e oracle test's profile (1,200 answers).
 * When the JSON differs (a fault, or only another key order), toEqual decides and reports the difference.
 */
export function expectJsonEqual(actual: unknown, expected: unknown, message?: string): void {
  if (JSON.stringify(actual) === JSON.stringify(expected)) return;
  expect(actual, message).toEqual(expected);
}
