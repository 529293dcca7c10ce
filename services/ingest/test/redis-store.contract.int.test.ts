// The StorePort contract (store-port-contract.ts) against the Redis adapter and the real scripts: what
// the fake of the core's unit tests (fake-store.ts) is held to.
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  alertKeys,
  apiKeys,
  billingZoneSince,
  createAlertRule,
  declareBillingZone,
  decodeCrossing,
  defineCommands,
  type RedisClient,
} from '@va/store';
import { testRedisTarget } from '@va/testkit/support';
import { deletePrefix, connectTarget } from '@va/store/testing';
import { redisStore } from '../src/adapters/redis-store';
import { STORE_PORT_CONTRACT, type ContractStore } from './store-port-contract';

const prefix = `t-contract-${Math.random().toString(36).slice(2, 8)}`;
let redis: RedisClient;
let run = 0;

beforeAll(() => {
  redis = connectTarget(testRedisTarget());
  defineCommands(redis);
});
afterAll(async () => {
  await deletePrefix(testRedisTarget(), prefix);
  redis.disconnect();
});

/** Each case in a key prefix of its own (the cases reuse API names). */
function contractStore(): ContractStore {
  const own = `${prefix}-${run++}`;
  const space = { prefix: own, generation: 1 };
  return {
    store: redisStore(redis, own),
    space,
    setCompactedThrough: async (apiId, hour) => {
      await redis.set(apiKeys(space, apiId).compactedThrough, String(hour));
    },
    retire: async (apiId, next) => {
      await redis.hset(apiKeys(space, apiId).offsets, '@retired', String(next));
    },
    createAlertRule: (rule) => createAlertRule(redis, own, rule),
    declareBillingZone: async (apiId, zone) => {
      await declareBillingZone(redis, own, apiId, zone);
    },
    billingZoneSince: (apiId) => billingZoneSince(redis, space, apiId),
    crossings: async (apiId) => {
      const entries = await redis.xrange(alertKeys(own, apiId).crossings, '-', '+');
      return entries.map(([, fields]) => {
        const { alertId: _id, apiId: _api, ...crossing } = decodeCrossing(apiId, fields);
        return crossing;
      });
    },
  };
}

describe('StorePort contract: the Redis adapter', () => {
  for (const c of STORE_PORT_CONTRACT) it(c.name, () => c.run(contractStore()));
});
