/**
 * The StorePort on Redis, through @va/store's scripts and readers. The one place where the
 * store's encoding of none (-1) meets the core's `null` (fromWire/toWire).
 */
import {
  advanceWatermark,
  applyApiBatches,
  confirmOffsets,
  drainStaged,
  isCluster,
  DictionaryWriter,
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
import { fromWire, toWire } from '../core/types';

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
      const { off, cmp } = await readApiProgress(redis, space, offsetField, apiIds);
      return { off: off.map(fromWire), cmp: cmp.map(fromWire) };
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
      const results = await applyApiBatches(
        redis,
        space,
        applies.map((a) => ({
          apiId: a.apiId,
          increments: a.increments,
          cas: {
            offsetField: a.offsetField,
            expectedOff: toWire(a.expectedOff),
            newOff: a.newOff,
            expectedCmp: toWire(a.expectedCmp),
          },
        })),
        options,
      );
      return results.map((r) =>
        r.status === 'off' || r.status === 'cmp' ? { ...r, actual: fromWire(r.actual) } : r,
      );
    },

    async confirmApplied(space, offsets) {
      const wait = options.wait;
      if (!wait || wait.replicas === 0) return offsets.map(() => ({ status: 'ok' as const }));
      const results = await confirmOffsets(redis, space, offsets, wait);
      return results.map((r) =>
        r.status === 'ok' ? r : { status: 'off' as const, actual: fromWire(r.actual) },
      );
    },

    readWatermark: async (space, topic, partition) =>
      fromWire(await readWatermark(redis, space, topic, partition)),

    async advanceWatermark(space, topic, partition, expected, next) {
      const moved = await advanceWatermark(redis, space, topic, partition, toWire(expected), next);
      return moved.ok ? moved : { ok: false, actual: fromWire(moved.actual) };
    },

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
