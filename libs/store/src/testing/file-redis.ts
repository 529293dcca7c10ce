/**
 * The Redis of one store test file: a key prefix of its own (so files side by side do not meet), a client
 * of the run's test Redis or cluster connected before the file's tests, and the prefix's keys and the
 * client removed after them. It registers vitest hooks: call it once, at the top level of a test file.
 * Store tests only (not re-exported by @va/store/testing: other packages' tests take testEnv).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { testRedisTarget } from '@va/testkit/support';
import type { RedisClient } from '../connection';
import type { DictName, KeySpace } from '../keys';
import { assignCodes } from '../scripts/dictionary-scripts';
import { connectTarget, deletePrefix } from './redis';

export interface FileRedis {
  /** The file's key prefix, `t-<name>-<random>`. */
  readonly prefix: string;
  /** Generation 1 of the prefix. */
  readonly space: KeySpace;
  /** The file's client (from beforeAll on). */
  readonly redis: RedisClient;
  /** Another client of the same Redis (for concurrent writers); the caller disconnects it. */
  connect(): RedisClient;
  /** assignCodes on the file's client and space: the codes of `values` in an API's dictionary `d`. */
  assignCodes(apiId: string, d: DictName, values: string[]): Promise<number[]>;
}

export function fileRedis(name: string): FileRedis {
  const prefix = `t-${name}-${randomBytes(4).toString('hex')}`;
  let client: RedisClient | undefined;
  const file: FileRedis = {
    prefix,
    space: { prefix, generation: 1 },
    get redis() {
      if (client === undefined) throw new Error('fileRedis: the client is connected in beforeAll');
      return client;
    },
    connect: () => connectTarget(testRedisTarget()),
    assignCodes: (apiId, d, values) => assignCodes(file.redis, file.space, apiId, d, values),
  };
  beforeAll(() => {
    client = file.connect();
  });
  afterAll(async () => {
    await deletePrefix(testRedisTarget(), prefix);
    client?.disconnect();
  });
  return file;
}
