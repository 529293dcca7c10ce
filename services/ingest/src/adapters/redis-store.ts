/**
 * The StorePort on Redis, through @va/store's scripts and readers. None is `null` on both sides
 * (the store converts to the scripts' -1 where it builds their arguments).
 */
import {
  advanceWatermark,
  applyApiBatches,
  billingZonesOf,
  confirmOffsets,
  drainStaged,
  isCluster,
  publishChanges,
  DictionaryWriter,
  readAlertRules,
  writeAlertLevels,
  readApiProgress,
  readGeneration,
  readWatermark,
  registerApisFromEvents,
  type ApiCodes,
  type KeySpace,
  type MissingValues,
  type RedisClient,
  type ReplicaWait,
} from '@va/store';
import type { ApplyOutcome, PlannedApply, StorePort } from '../core/ports';

export interface RedisStoreOptions {
  /** The replicas that must hold every applied batch (pipeline.ts, ReplicaWait). */
  wait?: ReplicaWait;
  /** Hash fields per script call; the rest of an API's batch is staged in chunks (@va/store apply.ts). */
  maxWritesPerCall?: number;
}

export function redisStore(redis: RedisClient, prefix: string, options: RedisStoreOptions = {}): StorePort {
  return {
    readGeneration: () => readGeneration(redis, prefix),

    registerApis: (claims) => registerApisFromEvents(redis, prefix, claims),

    async readProgress(space, offsetField, apiIds) {
      // Progress is read for APIs not cached: after a start, a rebalance or a failed batch, which is
      // also when a writer may have died between staging chunks and applying them.
      await drainStaged(redis, space, apiIds);
      return readApiProgress(redis, space, offsetField, apiIds);
    },

    // Concurrent commands on one connection: one round trip for all of them (each key in its own slot).
    readBillingZones: (apiIds) => Promise.all(apiIds.map((apiId) => billingZonesOf(redis, prefix, apiId))),

    // Concurrent MULTIs on one connection: one round trip for all of them.
    readAlertRules: (apiIds) => Promise.all(apiIds.map((apiId) => readAlertRules(redis, prefix, apiId))),

    writeAlertLevels: async (tables) => {
      await Promise.all(
        tables.map(({ apiId, version, table }) => writeAlertLevels(redis, prefix, apiId, version, table)),
      );
    },

    async assignCodes(space: KeySpace, missing: ReadonlyMap<string, MissingValues>) {
      // A writer per call: the core keeps the caches (CodeCache); this one only runs the scripts.
      const writer = new DictionaryWriter(redis, space);
      await writer.assign(missing);
      const out = new Map<string, ApiCodes>();
      for (const apiId of missing.keys()) out.set(apiId, writer.codesOf(apiId));
      return out;
    },

    async apply(space: KeySpace, applies: readonly PlannedApply[]): Promise<ApplyOutcome[]> {
      return applyApiBatches(
        redis,
        space,
        applies.map((a) => ({
          apiId: a.apiId,
          increments: a.increments,
          cas: {
            offsetField: a.offsetField,
            expectedOff: a.expectedOff,
            newOff: a.newOff,
            expectedCmp: a.expectedCmp,
          },
          ...(a.alerts && { alerts: a.alerts }),
        })),
        options,
      );
    },

    async confirmApplied(space, offsets) {
      const wait = options.wait;
      if (!wait || wait.replicas === 0) return offsets.map(() => ({ status: 'ok' as const }));
      return confirmOffsets(redis, space, offsets, wait);
    },

    readWatermark: (space, topic, partition) => readWatermark(redis, space, topic, partition),

    publishChanges: (space, apiIds) => publishChanges(redis, space, apiIds),

    advanceWatermark: (space, topic, partition, expected, next) =>
      advanceWatermark(redis, space, topic, partition, expected, next),

    onReset(listener) {
      redis.on('close', listener);
      // A cluster stays up while one node's connection drops (a failover): that node may come back as
      // another server with fewer writes, so the caches go too.
      if (isCluster(redis)) redis.on('-node', listener);
      return () => {
        redis.off('close', listener);
        redis.off('-node', listener);
      };
    },
  };
}
