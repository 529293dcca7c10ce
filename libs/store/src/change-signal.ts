/**
 * The change signal: after a batch is committed (its watermark CAS succeeded) the ingest worker
 * publishes which APIs it changed, one message per batch, on `<p>:changes` (keys.ts). The query
 * service's live streams (GET /v1/analytics.stream) re-read only the queries of those APIs.
 *
 * FORMAT: JSON `{"g":<generation>,"apis":["<apiId>",...]}`. A signal is a hint, never a source of
 * truth: it may be lost (no subscriber, a dropped connection) or repeated, and a reader that missed
 * one catches up by its periodic re-read. Plain PUBLISH (not SPUBLISH): a Redis Cluster broadcasts it
 * to every node, so one subscription on any node hears every API.
 */
import { globalKeys, type KeySpace } from './keys';
import type { RedisClient } from './connection';

export interface ChangeSignal {
  /** The counter generation the batch was written to (a rebuild writes a generation not yet read). */
  generation: number;
  apiIds: string[];
}

export function encodeChangeSignal(signal: ChangeSignal): string {
  return JSON.stringify({ g: signal.generation, apis: signal.apiIds });
}

/** The signal of a message, or null when it is not one (another writer's, a newer format). */
export function decodeChangeSignal(message: string): ChangeSignal | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { g, apis } = parsed as { g?: unknown; apis?: unknown };
  if (!Number.isSafeInteger(g) || !Array.isArray(apis)) return null;
  if (!apis.every((a): a is string => typeof a === 'string')) return null;
  return { generation: g as number, apiIds: apis };
}

/** Publishes the signal of one committed batch (one PUBLISH, whatever the number of APIs). */
export async function publishChanges(
  redis: RedisClient,
  space: KeySpace,
  apiIds: readonly string[],
): Promise<void> {
  if (apiIds.length === 0) return;
  await redis.publish(
    globalKeys(space.prefix).changesChannel,
    encodeChangeSignal({ generation: space.generation, apiIds: [...apiIds] }),
  );
}
