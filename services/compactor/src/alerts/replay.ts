/**
 * `alerts replay` (docs/alerts.md "Replay"): crossings of an API sent again to the endpoints subscribed to
 * their rules, one alert or every crossing detected in a time range (the stream keeps CROSSINGS_KEEP_MS).
 * A replay is a new job (its own job id) with the same webhook-id, so a receiver that dropped the first
 * delivery gets it, and one that kept it sees a repeat it can recognise.
 */
import { Queue } from 'bullmq';
import type { AlertCrossing } from '@va/contracts';
import {
  alertKeys,
  apiWorkspace,
  decodeCrossing,
  globalKeys,
  readAlertEndpoints,
  type RedisClient,
} from '@va/store';
import { jobsOf } from './fan-out';
import { DELIVERY_QUEUE } from './jobs';

export type ReplaySelection = { apiId: string } & (
  { alertId: string } | { since: number; until: number } /** unix ms, both included */
);

export interface ReplayResult {
  /** Crossings found. */
  crossings: number;
  /** Webhooks queued (one per crossing and subscribed endpoint). */
  queued: number;
}

/** The selected crossings of the API's stream, oldest first. */
async function selectedCrossings(
  redis: RedisClient,
  prefix: string,
  selection: ReplaySelection,
): Promise<AlertCrossing[]> {
  const key = alertKeys(prefix, selection.apiId).crossings;
  const [start, end] = 'since' in selection ? [String(selection.since), String(selection.until)] : ['-', '+'];
  const out: AlertCrossing[] = [];
  const seen = new Set<string>();
  let from = start;
  for (;;) {
    const page = (await redis.xrange(key, from, end, 'COUNT', 1000)) as [string, string[]][];
    for (const [, fields] of page) {
      const crossing = decodeCrossing(selection.apiId, fields);
      if ('alertId' in selection && crossing.alertId !== selection.alertId) continue;
      // A crossing detected twice (a rebuild) is one alert: sent once by the replay.
      if (seen.has(crossing.alertId)) continue;
      seen.add(crossing.alertId);
      out.push(crossing);
    }
    if (page.length < 1000) return out;
    from = `(${page[page.length - 1]![0]}`;
  }
}

export async function replayAlerts(
  redis: RedisClient,
  prefix: string,
  selection: ReplaySelection,
  now: number,
): Promise<ReplayResult> {
  const crossings = await selectedCrossings(redis, prefix, selection);
  const workspaceId = await apiWorkspace(redis, prefix, selection.apiId);
  if (crossings.length === 0 || workspaceId === null) return { crossings: crossings.length, queued: 0 };
  const endpoints = await readAlertEndpoints(redis, prefix, workspaceId);
  const jobs = jobsOf(workspaceId, endpoints, crossings, now);
  const queue = new Queue(DELIVERY_QUEUE, { connection: redis, prefix: globalKeys(prefix).bull });
  try {
    for (let n = 0; n < jobs.length; n += 500) await queue.addBulk(jobs.slice(n, n + 500));
  } finally {
    await queue.close();
  }
  return { crossings: crossings.length, queued: jobs.length };
}
