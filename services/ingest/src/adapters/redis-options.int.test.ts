// The worker's Redis connection (WORKER_REDIS_OPTIONS) when the connection drops under a command and the
// reconnect succeeds at once, as after a Redis restart the worker slept through (a GC or VM pause) or a
// CLIENT KILL: the command in flight must fail, so that the worker retries its batch from the watermark.
// ioredis 5.11 dropped it without settling its promise, and a worker awaiting that commit stalled for good
// (patches/ioredis+5.11.1.patch).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '@va/store';
import { connectTarget, testRedisTarget } from '@va/testkit/support';
import { WORKER_REDIS_OPTIONS } from './redis-options';

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

let admin: RedisClient;
beforeAll(() => {
  admin = connectTarget(testRedisTarget());
});
afterAll(() => {
  admin.disconnect();
});

describe('the worker connection when Redis closes it under a command', () => {
  it('fails the command in flight instead of leaving it pending, and serves the next one', async () => {
    const redis = connectRedis(testRedisTarget(), WORKER_REDIS_OPTIONS);
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
