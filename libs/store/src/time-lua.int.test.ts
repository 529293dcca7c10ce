/**
 * The Lua calendar and retention rule (commands/includes/time.lua) against the TypeScript one
 * (libs/core/src/time.ts), run in the real test Redis: fast-check draws day, month and bucket
 * indices over 1970-2400 (and before 1970), one EVAL evaluates a whole sample in Lua, and every
 * value must equal the TypeScript's.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dayStart,
  expiresAt,
  lastHourOf,
  monthOf,
  monthStart,
  DAY_MS,
  type BucketResolution,
  type EdgeResolution,
  type Resolution,
  type Retention,
} from '@va/core';
import { withIncludes } from './commands';
import { testRedisTarget } from '@va/testkit/support';
import { connectTarget } from './testing';
import { type RedisClient } from '@va/store';

let redis: RedisClient;
beforeAll(() => {
  redis = connectTarget(testRedisTarget());
});
afterAll(async () => {
  await redis.quit();
});

/** Evaluates `body` (Lua returning a table of numbers) after the time include. */
async function lua(body: string, args: (string | number)[]): Promise<number[]> {
  const script = withIncludes(`--- @include "includes/time"\n${body}`);
  const out = (await redis.eval(script, 0, ...args)) as (string | number)[];
  return out.map(Number);
}

// Integers as text: a Lua number returned to Redis is truncated to an integer, and may be large.
const EACH = (expr: string) => `
local out = {}
for i = 1, #ARGV, 4 do
  local res, index, retention = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local day = tonumber(ARGV[i + 3])
  out[#out + 1] = string.format('%.0f', ${expr})
end
return out
`;

const day = fc.integer({ min: -30_000, max: 157_000 }); // ~1888 .. ~2400
const month = fc.integer({ min: -600, max: 5_000 });
const res = fc.constantFrom<Resolution>('h', 'd', 'm');
const retentionMs = fc.integer({ min: 0, max: 6 * 366 }).map((days) => days * DAY_MS);
const sample = fc.array(fc.tuple(res, fc.integer({ min: -1_000, max: 3_000_000 }), retentionMs, day), {
  minLength: 1,
  maxLength: 200,
});

const argsOf = (rows: [Resolution, number, number, number][]) => rows.flat();
type Row = [Resolution, number, number, number];
/** Indices of a plausible size per resolution: hours up to ~2300, days and months scaled down. */
const scaledToResolution = (rows: Row[]): Row[] =>
  rows.map(([r, i, ret, d]) => [
    r,
    r === 'h' ? i : r === 'd' ? Math.floor(i / 24) : Math.floor(i / 730),
    ret,
    d,
  ]);

/** Property: the Lua expression `expr`, evaluated on every row, gives what `expected` gives in TypeScript. */
const agrees = (rows: fc.Arbitrary<Row[]>, expr: string, expected: (row: Row) => number) =>
  fc.assert(
    fc.asyncProperty(rows, async (sampled) => {
      expect(await lua(EACH(expr), argsOf(sampled))).toEqual(sampled.map(expected));
    }),
    { numRuns: 30 },
  );
const retentionOf = (ms: number): Retention => ({ hourMs: ms, dayMs: ms, monthMs: ms });
const months = fc
  .array(month, { minLength: 1, maxLength: 200 })
  .map((ms) => ms.map((m): Row => ['m', 0, 0, m]));

describe('includes/time.lua against libs/core/src/time.ts', () => {
  it('monthOfDay is monthOf(dayStart(d))', () =>
    agrees(sample, 'monthOfDay(day)', ([, , , d]) => monthOf(dayStart(d))));

  it('firstDayOfMonth is the day of monthStart(m)', () =>
    agrees(months, 'firstDayOfMonth(day)', ([, , , m]) => monthStart(m) / DAY_MS));

  it('expiresAt (bucket end + retention) agrees for hours, days and months', () =>
    agrees(sample.map(scaledToResolution), 'expiresAt(res, index, retention)', ([r, i, ret]) =>
      expiresAt(r, i, retentionOf(ret)),
    ));

  it('lastHourOf (the dirty score) agrees for hours, days and months', () =>
    agrees(sample.map(scaledToResolution), 'lastHourOf(res, index)', ([r, i]) => lastHourOf(r, i)));

  // A billing zone's edge (index: the minute of a local midnight) ends with that minute's UTC day.
  it('lastHourOf and expiresAt agree for the edges of billing zones', () => {
    const edge = fc.constantFrom<EdgeResolution>('z1d', 'z2m', 'z3d');
    const minute = fc.integer({ min: -1_000_000, max: 300_000_000 });
    const rows = fc.array(fc.tuple(edge, minute, retentionMs, day), { minLength: 1, maxLength: 200 });
    const asRows = rows as unknown as fc.Arbitrary<Row[]>;
    return Promise.all([
      agrees(asRows, 'lastHourOf(res, index)', ([r, i]) => lastHourOf(r as BucketResolution, i)),
      agrees(asRows, 'expiresAt(res, index, retention)', ([r, i, ret]) =>
        expiresAt(r as BucketResolution, i, retentionOf(ret)),
      ),
    ]);
  });
});
