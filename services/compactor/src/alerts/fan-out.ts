/**
 * From crossings to jobs (docs/alerts.md "Delivery"): the new entries of every crossings stream of an API
 * with rules are read as the consumer group `delivery` (so the delivery processes share them), and each
 * crossing becomes one job per endpoint of the API's workspace subscribed to its rule, with the job id
 * `<endpointId>-<alertId>`. An entry is acknowledged once its jobs are queued; an entry a killed process
 * read but never acknowledged is taken over by another after ALERTS_CLAIM_IDLE_MS. Reading twice queues nothing
 * twice (the job ids), so the order "queue, then acknowledge" loses nothing and costs no duplicate.
 */
import type { Queue } from 'bullmq';
import type { AlertCrossing } from '@va/contracts';
import type { Logger } from '@va/runtime';
import {
  alertGlobalKeys,
  alertKeys,
  apiWorkspace,
  CROSSINGS_GROUP,
  decodeCrossing,
  execPipeline,
  newPipeline,
  readAlertEndpoints,
  subscribes,
  type RedisClient,
  type StoredAlertEndpoint,
} from '@va/store';
import { DELIVER_JOB, deliverJobId, deliverJobOptions, replayJobId, type DeliverJobData } from './jobs';

/** Crossings are kept this long in their stream (replays reach this far back). */
export const CROSSINGS_KEEP_MS = 30 * 24 * 3_600_000;
const READ_COUNT = 500;

type Entry = [id: string, fields: string[]];

export interface FanOutDeps {
  store: RedisClient;
  queue: Queue;
  prefix: string;
  /** This process's consumer name in the group. */
  consumer: string;
  logger: Logger;
  now: () => number;
  /** An entry read but not acknowledged for this long belongs to a dead reader: this one takes it over. */
  claimIdleMs: number;
}

export interface FanOut {
  /** Reads every API's new crossings once and queues their jobs; the number of jobs queued. */
  once(): Promise<number>;
}

async function alertApis(store: RedisClient, prefix: string): Promise<string[]> {
  const out = new Set<string>();
  let cursor = '0';
  do {
    const [next, members] = await store.sscan(alertGlobalKeys(prefix).apis, cursor, 'COUNT', 1000);
    for (const member of members) out.add(member);
    cursor = next;
  } while (cursor !== '0');
  return [...out];
}

/**
 * The jobs of some crossings of one API: one per crossing and subscribed endpoint. A replay (`replayAt`:
 * its time) gets job ids of its own, so it is queued even while the first delivery's job is kept.
 */
export function jobsOf(
  workspaceId: string,
  endpoints: readonly StoredAlertEndpoint[],
  crossings: readonly AlertCrossing[],
  replayAt?: number,
) {
  return crossings.flatMap((crossing) =>
    endpoints
      .filter((endpoint) => subscribes(endpoint, crossing.ruleId))
      .map((endpoint) => {
        const { endpointId } = endpoint;
        const data: DeliverJobData = { workspaceId, endpointId, crossing };
        if (replayAt === undefined) {
          return {
            name: DELIVER_JOB,
            data,
            opts: deliverJobOptions(deliverJobId(endpointId, crossing.alertId)),
          };
        }
        const opts = deliverJobOptions(replayJobId(endpointId, crossing.alertId, replayAt));
        return { name: DELIVER_JOB, data: { ...data, replay: true }, opts };
      }),
  );
}

export function createFanOut(deps: FanOutDeps): FanOut {
  const { store, prefix } = deps;
  const { claimIdleMs } = deps;
  const grouped = new Set<string>();

  async function ensureGroup(key: string): Promise<void> {
    if (grouped.has(key)) return;
    try {
      // From the start of the stream: crossings detected before the first delivery process ran are sent too.
      await store.xgroup('CREATE', key, CROSSINGS_GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('BUSYGROUP')) throw err;
    }
    grouped.add(key);
  }

  /** Entries another reader took and has left unacknowledged for claimIdleMs (it died), now this one's. */
  async function claimEntries(key: string): Promise<Entry[]> {
    const claimed = (await store.xautoclaim(
      key,
      CROSSINGS_GROUP,
      deps.consumer,
      claimIdleMs,
      '0-0',
      'COUNT',
      READ_COUNT,
    )) as [string, (Entry | null)[]];
    return claimed[1].filter((e): e is Entry => e !== null);
  }

  const readNew = (key: string) =>
    ['GROUP', CROSSINGS_GROUP, deps.consumer, 'COUNT', READ_COUNT, 'STREAMS', key, '>'] as const;

  /** Queues the jobs of entries of one API and acknowledges them; the number of jobs. */
  async function fanOutEntries(
    apiId: string,
    key: string,
    entries: Entry[],
    endpointsOf: (ws: string) => Promise<StoredAlertEndpoint[]>,
  ): Promise<number> {
    const crossings: AlertCrossing[] = [];
    for (const [id, fields] of entries) {
      try {
        crossings.push(decodeCrossing(apiId, fields));
      } catch (err) {
        deps.logger.error(
          { apiId, entry: id, err: (err as Error).message },
          'malformed crossing entry skipped',
        );
      }
    }
    const workspaceId = await apiWorkspace(store, prefix, apiId);
    let queued = 0;
    if (workspaceId !== null) {
      const jobs = jobsOf(workspaceId, await endpointsOf(workspaceId), crossings);
      for (let n = 0; n < jobs.length; n += 500) await deps.queue.addBulk(jobs.slice(n, n + 500));
      queued = jobs.length;
    }
    await store.xack(key, CROSSINGS_GROUP, ...entries.map(([id]) => id));
    return queued;
  }

  /**
   * One API after the poll's read of its new entries (`fresh`): those, then further reads while they come
   * full, and with `housekeeping` the entries of dead readers first and the trim of old entries after.
   */
  async function fanOutApi(
    apiId: string,
    fresh: Entry[],
    housekeeping: boolean,
    endpointsOf: (ws: string) => Promise<StoredAlertEndpoint[]>,
  ): Promise<number> {
    const key = alertKeys(prefix, apiId).crossings;
    let queued = 0;
    if (housekeeping) {
      const claimed = await claimEntries(key);
      if (claimed.length > 0) queued += await fanOutEntries(apiId, key, claimed, endpointsOf);
    }
    let entries = fresh;
    while (entries.length > 0) {
      queued += await fanOutEntries(apiId, key, entries, endpointsOf);
      if (entries.length < READ_COUNT) break;
      const more = (await store.xreadgroup(...readNew(key))) as [string, Entry[]][] | null;
      entries = more?.[0]?.[1] ?? [];
    }
    if (housekeeping) await store.xtrim(key, 'MINID', '~', String(deps.now() - CROSSINGS_KEEP_MS));
    return queued;
  }

  // Claiming and trimming cost a command per API each: done every half claim period, not every poll.
  let lastHousekeeping = -Infinity;

  return {
    async once() {
      const endpoints = new Map<string, Promise<StoredAlertEndpoint[]>>();
      const endpointsOf = (ws: string) => {
        let read = endpoints.get(ws);
        if (!read) endpoints.set(ws, (read = readAlertEndpoints(store, prefix, ws)));
        return read;
      };
      const housekeeping = deps.now() - lastHousekeeping >= claimIdleMs / 2;
      if (housekeeping) lastHousekeeping = deps.now();
      const apis = await alertApis(store, prefix);
      for (const apiId of apis) await ensureGroup(alertKeys(prefix, apiId).crossings);
      // One pipelined read of every stream's new entries: a poll costs one round trip while nothing happens.
      const pipeline = newPipeline(store);
      for (const apiId of apis) pipeline.xreadgroup(...readNew(alertKeys(prefix, apiId).crossings));
      let replies: unknown[];
      try {
        replies = await execPipeline(pipeline);
      } catch (err) {
        // A stream (and its group) was deleted: every group is checked again at the next poll.
        grouped.clear();
        throw err;
      }
      let queued = 0;
      for (const [n, apiId] of apis.entries()) {
        const fresh = (replies[n] as [string, Entry[]][] | null)?.[0]?.[1] ?? [];
        if (fresh.length === 0 && !housekeeping) continue;
        try {
          queued += await fanOutApi(apiId, fresh, housekeeping, endpointsOf);
        } catch (err) {
          deps.logger.warn(
            { apiId, err: (err as Error).message },
            'reading crossings failed (the entries are read again after ALERTS_CLAIM_IDLE_MS)',
          );
        }
      }
      return queued;
    },
  };
}
