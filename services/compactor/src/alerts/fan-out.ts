/**
 * From crossings to jobs (docs/alerts.md "Delivery"): the new entries of every crossings stream of an API
 * with rules are read as the consumer group `delivery` (so the delivery processes share them), and each
 * crossing becomes one job per endpoint of the API's workspace subscribed to its rule, with the job id
 * `<endpointId>-<alertId>`. An entry is acknowledged once its jobs are queued; an entry a killed process
 * read but never acknowledged is taken over by another after CLAIM_IDLE_MS. Reading twice queues nothing
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
  readAlertEndpoints,
  subscribes,
  type RedisClient,
  type StoredAlertEndpoint,
} from '@va/store';
import { DELIVER_JOB, deliverJobId, deliverJobOptions, replayJobId, type DeliverJobData } from './jobs';

/** An entry read but not acknowledged for this long belongs to a dead reader: another takes it over. */
export const CLAIM_IDLE_MS = 60_000;
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

  async function readEntries(key: string): Promise<Entry[]> {
    const claimed = (await store.xautoclaim(
      key,
      CROSSINGS_GROUP,
      deps.consumer,
      CLAIM_IDLE_MS,
      '0-0',
      'COUNT',
      READ_COUNT,
    )) as [string, (Entry | null)[]];
    const fresh = (await store.xreadgroup(
      'GROUP',
      CROSSINGS_GROUP,
      deps.consumer,
      'COUNT',
      READ_COUNT,
      'STREAMS',
      key,
      '>',
    )) as [string, Entry[]][] | null;
    return [...claimed[1].filter((e): e is Entry => e !== null), ...(fresh?.[0]?.[1] ?? [])];
  }

  async function fanOutApi(apiId: string, endpointsOf: (ws: string) => Promise<StoredAlertEndpoint[]>) {
    const key = alertKeys(prefix, apiId).crossings;
    await ensureGroup(key);
    let queued = 0;
    for (;;) {
      let entries: Entry[];
      try {
        entries = await readEntries(key);
      } catch (err) {
        // The stream (and its group) was deleted: create the group again at the next poll.
        if (err instanceof Error && err.message.startsWith('NOGROUP')) grouped.delete(key);
        throw err;
      }
      if (entries.length === 0) break;
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
      if (workspaceId !== null) {
        const jobs = jobsOf(workspaceId, await endpointsOf(workspaceId), crossings);
        for (let n = 0; n < jobs.length; n += 500) await deps.queue.addBulk(jobs.slice(n, n + 500));
        queued += jobs.length;
      }
      await store.xack(key, CROSSINGS_GROUP, ...entries.map(([id]) => id));
      if (entries.length < READ_COUNT) break;
    }
    await store.xtrim(key, 'MINID', '~', String(deps.now() - CROSSINGS_KEEP_MS));
    return queued;
  }

  return {
    async once() {
      const endpoints = new Map<string, Promise<StoredAlertEndpoint[]>>();
      const endpointsOf = (ws: string) => {
        let read = endpoints.get(ws);
        if (!read) endpoints.set(ws, (read = readAlertEndpoints(store, prefix, ws)));
        return read;
      };
      let queued = 0;
      for (const apiId of await alertApis(store, prefix)) {
        try {
          queued += await fanOutApi(apiId, endpointsOf);
        } catch (err) {
          deps.logger.warn(
            { apiId, err: (err as Error).message },
            'reading crossings failed (the next poll retries)',
          );
        }
      }
      return queued;
    },
  };
}
