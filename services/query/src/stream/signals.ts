/**
 * The query service's one subscription to the ingest workers' change signal (@va/store change-signal.ts):
 * a connection of its own (a subscribed connection can run no other command), opened with the first stream.
 * After a reconnect, signals sent meanwhile are lost: `onResync` then has every stream query read again.
 */
import type { Logger } from '@va/runtime';
import { decodeChangeSignal, globalKeys, type RedisClient } from '@va/store';

export interface ChangeListener {
  close(): Promise<void>;
}

export function listenForChanges(
  redis: RedisClient,
  prefix: string,
  handlers: { onChange: (apiIds: readonly string[]) => void; onResync: () => void },
  logger?: Logger,
): ChangeListener {
  const channel = globalKeys(prefix).changesChannel;
  const subscriber = redis.duplicate();
  let lastError = 0;
  let readyBefore = false;
  subscriber.on('error', (err: Error) => {
    if (Date.now() - lastError < 5_000) return; // one line per 5 s while Redis is away
    lastError = Date.now();
    logger?.warn({ err: err.message }, 'change signal subscription: redis error');
  });
  subscriber.on('ready', () => {
    if (readyBefore) handlers.onResync(); // ioredis subscribes again by itself (autoResubscribe)
    readyBefore = true;
  });
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    const signal = decodeChangeSignal(message);
    if (signal) handlers.onChange(signal.apiIds);
  });
  subscriber.subscribe(channel).catch((err: unknown) => {
    logger?.warn({ err }, 'change signal subscription failed: streams read every QUERY_STREAM_REFRESH_MS');
  });
  return {
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
