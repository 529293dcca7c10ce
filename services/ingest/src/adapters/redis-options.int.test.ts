// The worker's Redis connection (workerRedisOptions) when Redis stops answering a command it was sent:
// - the connection drops and the reconnect succeeds at once, as after a Redis restart the worker slept
//   through (a GC or VM pause) or a CLIENT KILL. ioredis 5.11 dropped the command without settling it, and
//   a worker awaiting that commit stalled for good (patches/ioredis+5.11.1.patch);
// - a cluster master hangs (SIGSTOP: its connections stay open) and its replica takes over. Nothing closes
//   the connection, and a command sent to the hung node could wait for good; now it times out, and the next
//   ones reach the replica.
// Either way the command must fail, so that the worker retries its batch from the watermark.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_INGEST_SETTINGS } from '@va/config';
import { connectRedis, type RedisClient } from '@va/store';
import { startTestCluster, testRedisTarget } from '@va/testkit/support';
import { connectTarget } from '@va/store/testing';
import { workerRedisOptions } from './redis-options';
import { scaled } from '@va/testkit/time';

/** The promise's outcome, or 'pending' if it has not settled within `ms`. */
function outcomeWithin(promise: Promise<unknown>, ms: number): Promise<string> {
  return Promise.race([
    promise.then(
      () => 'resolved',
      (err: unknown) => `rejected: ${err instanceof Error ? err.message : String(err)}`,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve('pending'), ms)),
  ]);
}

describe('the worker connection when Redis closes it under a command', () => {
  let admin: RedisClient;
  beforeAll(() => {
    admin = connectTarget(testRedisTarget());
  });
  afterAll(() => {
    admin.disconnect();
  });

  it('fails the command in flight instead of leaving it pending, and serves the next one', async () => {
    const redis = connectRedis(testRedisTarget(), workerRedisOptions(DEFAULT_INGEST_SETTINGS));
    redis.on('error', () => undefined); // the kill is reported as an error event too
    await redis.connect();
    try {
      const id = Number(await redis.client('ID'));
      // A command that is surely in flight when the connection goes: it blocks for up to 10 s.
      const inFlight = redis.blpop(`redis-options-test-${id}`, 10);
      await expect
        .poll(async () => String(await admin.client('LIST', 'ID', String(id))))
        .toMatch(/cmd=blpop/);
      const ready = new Promise((resolve) => redis.once('ready', resolve));
      expect(await admin.client('KILL', 'ID', String(id))).toBe(1);
      await ready; // reconnected on the first attempt: Redis never went away
      expect(await outcomeWithin(inFlight, 3_000)).toBe('rejected: Command aborted due to connection close');
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });
});

describe('the worker connection when a cluster master hangs', () => {
  it('times a command the hung master leaves unanswered out, and sends the next ones to the replica that took over', async () => {
    const cluster = await startTestCluster();
    // A short timeout for the test; the default is INGEST_REDIS_TIMEOUT_MS.
    const redis = connectRedis(cluster.target, workerRedisOptions({ redisTimeoutMs: 3_000 }));
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      const master = await cluster.masterOf('{hung}');
      const failedOver = cluster.freezeMaster(master);
      // Until its replica took over, the client sends the slot's commands to the master: answered until the
      // SIGSTOP lands (freezeMaster first reads the cluster's view), never after it.
      let outcome = 'resolved';
      for (const until = Date.now() + 20_000; outcome === 'resolved' && Date.now() < until;) {
        outcome = await outcomeWithin(redis.incr('{hung}counter'), 30_000);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(outcome).toBe('rejected: Command timed out');
      expect(await failedOver).not.toBe(master);
      // The worker's retry: once the client's slot map is refreshed (libs/store connection.ts), the
      // replica that took over answers.
      await expect
        .poll(
          () =>
            redis.incr('{hung}counter').then(
              () => 'answered',
              () => 'failed',
            ),
          { timeout: scaled(30_000) },
        )
        .toBe('answered');
    } finally {
      redis.disconnect();
      await cluster.stop();
    }
  });
});
