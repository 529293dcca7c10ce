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

describe('includes/time.lua against libs/core/src/time.ts', () => {
  it('monthOfDay is monthOf(dayStart(d))', async () => {
    await fc.assert(
      fc.asyncProperty(sample, async (rows) => {
        const got = await lua(EACH('monthOfDay(day)'), argsOf(rows));
        expect(got).toEqual(rows.map(([, , , d]) => monthOf(dayStart(d))));
      }),
      { numRuns: 30 },
    );
  });

  it('firstDayOfMonth is the day of monthStart(m)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(month, { minLength: 1, maxLength: 200 }), async (months) => {
        const rows = months.map((m): [Resolution, number, number, number] => ['m', 0, 0, m]);
        const got = await lua(EACH('firstDayOfMonth(day)'), argsOf(rows));
        expect(got).toEqual(months.map((m) => monthStart(m) / DAY_MS));
      }),
      { numRuns: 30 },
    );
  });

  it('expiresAt (bucket end + retention) agrees for hours, days and months', async () => {
    await fc.assert(
      fc.asyncProperty(sample, async (rows) => {
        // Indices of a plausible size per resolution: hours up to ~2300, days and months scaled down.
        const scaled = rows.map(([r, i, ret, d]): [Resolution, number, number, number] => [
          r,
          r === 'h' ? i : r === 'd' ? Math.floor(i / 24) : Math.floor(i / 730),
          ret,
          d,
        ]);
        const got = await lua(EACH('expiresAt(res, index, retention)'), argsOf(scaled));
        const retention = (ms: number): Retention => ({ hourMs: ms, dayMs: ms, monthMs: ms });
        expect(got).toEqual(scaled.map(([r, i, ret]) => expiresAt(r, i, retention(ret))));
      }),
      { numRuns: 30 },
    );
  });

  it('lastHourOf (the dirty score) agrees for hours, days and months', async () => {
    await fc.assert(
      fc.asyncProperty(sample, async (rows) => {
        const scaled = rows.map(([r, i, ret, d]): [Resolution, number, number, number] => [
          r,
          r === 'h' ? i : r === 'd' ? Math.floor(i / 24) : Math.floor(i / 730),
          ret,
          d,
        ]);
        const got = await lua(EACH('lastHourOf(res, index)'), argsOf(scaled));
        expect(got).toEqual(scaled.map(([r, i]) => lastHourOf(r, i)));
      }),
      { numRuns: 30 },
    );
  });
});
