// Time in tests, from one place. A test proves a fixed amount of work; how long that work takes depends on the
// machine, so no budget a test waits under may be sized to the machine it was written on:
// - a budget for work (a test's timeout, a waitFor for something to happen) is generous (at least 3x what the work
//   takes on an idle development machine) and multiplied by TEST_TIME_SCALE (default 1), which CI on a slower or
//   busier machine raises; vitest.config.ts and waitFor apply it, explicit per-test timeouts through scaled();
// - a property test runs a fixed set of seeds that always runs, plus an optional random extension bounded by time
//   (repeatFor) that ends when its time is up, never failing for it.
// Bounds that are the claim itself (a WAIT of 300 ms returns within 5 s) stay as they are, far above the claim.
// No vitest import: vitest.config.ts reads this file too.
import { setImmediate as tick } from 'node:timers/promises';

/** TEST_TIME_SCALE: the factor every budget for work is multiplied by (>= 1; default 1). */
export function timeScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.TEST_TIME_SCALE;
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale < 1) {
    throw new Error(`TEST_TIME_SCALE must be a number >= 1 (a slower machine waits longer), not '${raw}'`);
  }
  return scale;
}

/**
 * The query service's time budget (QUERY_TIMEOUT_MS), and a client's deadline, in tests that check answers, not
 * speed: a loaded CI machine must not turn a slow answer into a 503 (its 10 s default did, more than once). The
 * budget has tests of its own, which set it.
 */
export const ANSWER_BUDGET_MS = 120_000;

/** A budget for work, in ms, scaled by TEST_TIME_SCALE. */
export function scaled(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  return Math.ceil(ms * timeScale(env));
}

/**
 * The time a property test spends on random cases beyond its fixed seeds: `defaultMs`, or
 * TEST_PROPERTY_EXTENSION_MS (0 turns the extension off; a long one makes a soak run). Not scaled: a slower
 * machine tries fewer random cases in it, the fixed seeds prove the same everywhere.
 */
export function propertyExtensionMs(defaultMs: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.TEST_PROPERTY_EXTENSION_MS;
  if (raw === undefined || raw === '') return defaultMs;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 0) {
    throw new Error(`TEST_PROPERTY_EXTENSION_MS must be a number of ms >= 0, not '${raw}'`);
  }
  return ms;
}

/**
 * Runs `round` again and again until `budgetMs` have passed, with a turn of the event loop between rounds (a
 * long synchronous stretch starves vitest's worker RPC), and returns how many rounds ran. Ends when the time is
 * up, between rounds: it never fails for time, and overruns the budget by at most one round. A round that
 * throws fails it at once. Zero rounds when the budget is 0.
 */
export async function repeatFor(
  budgetMs: number,
  round: (n: number) => void | Promise<void>,
  now: () => number = Date.now,
): Promise<number> {
  const deadline = now() + budgetMs;
  let rounds = 0;
  while (now() < deadline) {
    await round(rounds++);
    await tick();
  }
  return rounds;
}
