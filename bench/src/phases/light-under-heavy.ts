/**
 * The isolation check: a light query (the API's last 30 days by day, ending now) at one
 * connection from one root key, while 10 connections of other root keys loop on the heavy request
 * (scenarios.ts HEAVY_PARAMS). Run twice: the 10 heavy connections on one root key, where
 * QUERY_MAX_CONCURRENT lets at most that many run and refuses the rest with 429 (which they ask again
 * at once: autocannon does not wait for Retry-After), and on ten root keys, one each, where all ten run.
 * The heavy requests start a second before the light ones are timed and are stopped after; the
 * service then gets its query budget to finish the ones in flight before anything else is measured.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { cannon, failureText, startCannon, type CannonRun } from '../cannon';
import { log } from '../log';

export interface LightUnderHeavyResult {
  /** Root keys the heavy connections share. */
  heavyRootKeys: number;
  heavyConnections: number;
  lightPath: string;
  heavyPath: string;
  light: CannonRun;
  /** The heavy requests' answers by kind (200 latencies, 429s, 503 query_timeout, ...). */
  heavy: CannonRun;
}

export interface LightUnderHeavyInput {
  baseUrl: string;
  lightPath: string;
  heavyPath: string;
  /** Root keys of the light query (none of them heavy). */
  lightKeys: readonly string[];
  heavyKeys: readonly string[];
  heavyConnections: number;
  seconds: number;
  /** How long the service may still work on a heavy request after its client is gone. */
  settleMs: number;
}

const LEAD_MS = 1_000;

export async function lightUnderHeavy(input: LightUnderHeavyInput): Promise<LightUnderHeavyResult> {
  const heavy = startCannon({
    url: `${input.baseUrl}${input.heavyPath}`,
    connections: input.heavyConnections,
    seconds: input.seconds + 60, // stopped when the light run ends
    bearer: input.heavyKeys,
  });
  try {
    await sleep(LEAD_MS);
    const light = await cannon({
      url: `${input.baseUrl}${input.lightPath}`,
      connections: 1,
      seconds: input.seconds,
      bearer: input.lightKeys,
    });
    heavy.stop();
    const heavyRun = await heavy.done;
    log(
      `light-under-heavy (${input.heavyConnections} heavy connections on ${input.heavyKeys.length} root keys): ` +
        `light p50 ${light.latencyMs.p50.toFixed(2)} ms, p99 ${light.latencyMs.p99.toFixed(2)} ms` +
        (light.failures > 0 ? `, ${light.failures} FAILED (${failureText(light.failureKinds)})` : '') +
        `; heavy: ${heavyRun.latencyMs.count} answered 200, ${failureText(heavyRun.failureKinds) || 'no other answers'}`,
    );
    return {
      heavyRootKeys: input.heavyKeys.length,
      heavyConnections: input.heavyConnections,
      lightPath: input.lightPath,
      heavyPath: input.heavyPath,
      light,
      heavy: heavyRun,
    };
  } finally {
    heavy.stop();
    await sleep(input.settleMs);
  }
}
