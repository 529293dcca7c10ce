import net from 'node:net';
import type { Redis } from 'ioredis';
import type { RedisClient } from '../connection';

/**
 * The commands Redis ran on keys under `prefix` (scripts' included) during `run`, from MONITOR on a plain
 * socket: INFO's counters are the whole server's, and other test files run beside the caller (ioredis'
 * own monitor() mixed up its queue under their traffic). One node: callers skip it on a cluster.
 */
export async function monitoredCommands(
  redis: RedisClient,
  prefix: string,
  run: () => Promise<unknown>,
): Promise<number> {
  const { host, port } = (redis as Redis).options;
  const socket = net.connect({ host: host ?? '127.0.0.1', port: port ?? 6379 });
  const marker = `${prefix}:monitor-marker:${Math.random()}`;
  let count = 0;
  let buffered = '';
  let markerSeen: () => void = () => undefined;
  const seen = new Promise<void>((resolve) => (markerSeen = resolve));
  const started = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      const lines = buffered.split('\r\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (line === '+OK') resolve();
        else if (line.includes(marker)) markerSeen();
        else if (line.includes(`"${prefix}:`)) count++;
      }
    });
  });
  socket.write('MONITOR\r\n');
  try {
    await started;
    await run();
    await redis.exists(marker);
    await seen;
    return count;
  } finally {
    socket.destroy();
  }
}
