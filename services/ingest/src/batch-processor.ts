/**
 * The exactly-once write protocol of docs/design.md for one partition batch, against Redis and
 * without Kafka, in two steps so that the worker can overlap them across batches:
 *
 *   prepare(batch, wm)   decode and validate, dead-letter (awaited), register new APIs, load the
 *                        progress and dictionary codes it lacks, pre-aggregate. Skips what Redis
 *                        already holds (offsets <= wm, and per API <= off[api]).
 *   commit(prepared, wm) one applyApiBatch per API (pipelined, CAS on off/cmp/dictionaries),
 *                        then the wm CAS. Says `applied`, or `conflict`: the partition must be
 *                        re-synchronized from Redis (another worker owns it, or Redis lost writes).
 *
 * Commits of one partition must run one after the other, each with the wm the previous one set.
 *
 * Caches (each only saves round trips; every one is checked by a CAS in Redis):
 *   owners  apiId -> workspace                      (registration; immutable once set)
 *   offs    "<topic>/<partition>" -> apiId -> off    (dropped per partition on any doubt)
 *   cmps    apiId -> last compacted hour             (refreshed when the cmp CAS fails)
 *   dicts   apiId -> value -> code                   (DictionaryWriter)
 * All are dropped when the Redis connection closes (`epoch`): a Redis that restarted may have
 * lost its last second, and a code cached from it may have been given to another value since.
 */
import type { IHeaders } from 'kafkajs';
import type { Logger } from '@va/runtime';
import {
  advanceWatermark,
  applyApiBatches,
  DictionaryWriter,
  emptyMissing,
  expand,
  isCluster,
  partitionField,
  readApiProgress,
  readGeneration,
  registerApisFromEvents,
  TupleCounter,
  type ApiApply,
  type ApiCodes,
  type ApiIncrements,
  type KeySpace,
  type MissingValues,
  type RedisClient,
} from '@va/store';
import type { Retention } from '@va/core';
import type { DeadLetter } from './dead-letter';
import { decodeContext, decodeEvent, expiredDetail, isExpired, type ValidEvent } from './decode';

export interface BatchMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: IHeaders;
  /** Kafka's timestamp of the record (unix ms as a string, as kafkajs gives it). */
  timestamp?: string;
}

export interface PartitionBatch {
  topic: string;
  partition: number;
  /** In offset order; those at or below the believed wm are skipped. */
  messages: readonly BatchMessage[];
  /** The batch's last offset (may exceed the last message's: control records). */
  lastOffset: number;
}

export type ConflictCause = 'off' | 'dict' | 'wm' | 'redis-reset' | 'cmp-retries' | 'sealed';

export interface Conflict {
  status: 'conflict';
  cause: ConflictCause;
  detail: string;
}

export interface Applied {
  status: 'applied';
  /** Events counted by this commit. */
  applied: number;
  /** Redelivered events skipped because Redis already held them. */
  skipped: number;
  deadLettered: number;
}

interface PreparedApi {
  apiId: string;
  counter: TupleCounter;
  /** cmp the increments were split with; the CAS checks it. */
  cmp: number;
  increments: ApiIncrements;
}

export interface PreparedBatch {
  status: 'prepared';
  topic: string;
  partition: number;
  field: string;
  lastOffset: number;
  epoch: number;
  space: KeySpace;
  now: number;
  apis: PreparedApi[];
  skipped: number;
  deadLettered: number;
}

export interface BatchProcessorDeps {
  redis: RedisClient;
  prefix: string;
  retention: Retention;
  clock: () => number;
  /** Produces the records to the DLQ; resolves once the broker acknowledged them. */
  deadLetter: (records: DeadLetter[]) => Promise<void>;
  logger?: Logger;
  /**
   * Rebuild (docs/rebuild.md): always write into this generation, whatever `<p>:gen` says, and
   * never follow a switch. Unset (the live worker): the current generation.
   */
  generation?: number;
  /** Rebuild --since: valid events to leave out because the old generation's copy carried them. */
  skipEvent?: (event: ValidEvent, field: string, offset: number) => boolean;
}

/** What one batch knows of an API while it decodes (one lookup per event instead of four). */
interface BatchApi {
  counter: TupleCounter;
  codes: ApiCodes;
  owner: string | undefined;
  off: number | undefined;
  cmp: number | undefined;
}

interface Deferred {
  event: ValidEvent;
  offset: number;
  message: BatchMessage;
}

/** The compactor moves cmp about once an hour: a few retries settle any race with it. */
const CMP_RETRIES = 5;

export class BatchProcessor {
  private epoch = 0;
  private space: KeySpace | undefined;
  private spaceEpoch = -1;
  private owners = new Map<string, string>();
  private offs = new Map<string, Map<string, number>>();
  private cmps = new Map<string, number>();
  private readonly dicts: DictionaryWriter;
  private readonly resetListeners: (() => void)[] = [];

  constructor(private readonly deps: BatchProcessorDeps) {
    this.dicts = new DictionaryWriter(deps.redis, { prefix: deps.prefix, generation: 1 });
    deps.redis.on('close', () => this.reset('redis connection closed'));
    // A cluster stays up while one node's connection drops (a failover): that node may come back as
    // another server with fewer writes, so the caches go too.
    if (isCluster(deps.redis)) deps.redis.on('-node', () => this.reset('redis cluster node lost'));
  }

  /** Called after every reset: the worker then re-reads every partition's wm. */
  onReset(listener: () => void): void {
    this.resetListeners.push(listener);
  }

  /** Forget everything learned from Redis. */
  reset(why: string): void {
    this.epoch++;
    this.owners = new Map();
    this.offs = new Map();
    this.cmps = new Map();
    this.dicts.clear();
    this.deps.logger?.warn({ why, epoch: this.epoch }, 'ingest caches dropped');
    for (const listener of this.resetListeners) listener();
  }

  /** Forget the per-API offsets of one partition (before re-reading its wm). */
  forgetPartition(topic: string, partition: number): void {
    this.offs.delete(partitionField(topic, partition));
  }

  /** The key space of the current generation (read once per Redis epoch). */
  async keySpace(): Promise<KeySpace> {
    if (this.space === undefined || this.spaceEpoch !== this.epoch) {
      const epoch = this.epoch;
      const generation = this.deps.generation ?? (await readGeneration(this.deps.redis, this.deps.prefix));
      this.space = { prefix: this.deps.prefix, generation };
      this.spaceEpoch = epoch;
      this.dicts.clear(this.space);
    }
    return this.space;
  }

  /**
   * True when `<p>:gen` moved away from the generation being written (a rebuild switched): every
   * cache is dropped then (reset), so that each partition re-reads its wm in the new generation
   * and resumes from there. One GET; never true with a fixed generation.
   */
  async generationSwitched(): Promise<boolean> {
    if (this.deps.generation !== undefined || this.space === undefined) return false;
    if (this.spaceEpoch !== this.epoch) return false; // already reset: keySpace() reads it again
    const current = await readGeneration(this.deps.redis, this.deps.prefix);
    if (current === this.space.generation || this.spaceEpoch !== this.epoch) return false;
    this.reset(`generation switched from ${this.space.generation} to ${current}`);
    return true;
  }

  async prepare(batch: PartitionBatch, wm: number): Promise<PreparedBatch | Conflict> {
    const { redis, retention } = this.deps;
    const epoch = this.epoch;
    const space = await this.keySpace();
    const now = this.deps.clock();
    const field = partitionField(batch.topic, batch.partition);
    const offs = this.offsetsOf(field);
    const dead: DeadLetter[] = [];
    const toDead = (m: BatchMessage, reason: DeadLetter['reason'], detail: string) =>
      dead.push({
        topic: batch.topic,
        partition: batch.partition,
        offset: m.offset,
        key: m.key,
        value: m.value,
        headers: m.headers,
        reason,
        detail,
      });
    const apis = new Map<string, BatchApi>();
    const apiOf = (apiId: string): BatchApi => {
      let a = apis.get(apiId);
      if (!a) {
        a = {
          counter: new TupleCounter(),
          codes: this.dicts.codesOf(apiId),
          owner: this.owners.get(apiId),
          off: offs.get(apiId),
          cmp: this.cmps.get(apiId),
        };
        apis.set(apiId, a);
      }
      return a;
    };
    let skipped = 0;

    // 1. Decode every message. The common case (API, progress and codes cached) is counted at once;
    //    the rest waits for one round of Redis reads.
    const deferred: Deferred[] = [];
    const ctx = decodeContext(now, retention);
    for (const m of batch.messages) {
      const offset = Number(m.offset);
      if (offset <= wm) continue;
      // One verdict per record, however often it is processed (a crash, a rebuild): "future" is
      // judged against the record's Kafka timestamp, "expired" only after the per-API offset
      // check (a record counted before is skipped, whatever the clock says now).
      const e = decodeEvent(m.value, ctx, { receivedAt: Number(m.timestamp), checkExpiry: false });
      if (!e.ok) {
        toDead(m, e.reason, e.detail);
        continue;
      }
      if (this.deps.skipEvent?.(e, field, offset)) {
        skipped++;
        continue;
      }
      const a = apiOf(e.apiId);
      if (a.owner === undefined || a.off === undefined || a.cmp === undefined) {
        deferred.push({ event: e, offset, message: m });
        continue;
      }
      if (offset <= a.off) {
        skipped++;
        continue;
      }
      if (isExpired(e, ctx)) {
        toDead(m, 'expired', expiredDetail(e.time));
        continue;
      }
      if (e.workspaceId !== a.owner) {
        toDead(m, 'workspace_mismatch', `API ${e.apiId} belongs to another workspace`);
        continue;
      }
      const k = a.codes.k.get(e.keyId);
      const s = a.codes.s.get(e.tagSet);
      const i = e.identity === undefined ? -1 : a.codes.i.get(e.identity);
      if (k === undefined || s === undefined || i === undefined) {
        deferred.push({ event: e, offset, message: m });
        continue;
      }
      a.counter.add(e.hour, k, i, s, e.o);
    }

    // 2. What the deferred events lack: registration of new APIs (first workspace wins) and the
    //    progress (off, cmp) of APIs not cached, in one round trip; then missing codes.
    if (deferred.length > 0) {
      const unregistered: { apiId: string; workspaceId: string }[] = [];
      const unknownProgress: string[] = [];
      const seen = new Set<string>();
      for (const { event } of deferred) {
        if (seen.has(event.apiId)) continue;
        seen.add(event.apiId);
        const a = apis.get(event.apiId)!;
        if (a.owner === undefined) unregistered.push({ apiId: event.apiId, workspaceId: event.workspaceId });
        if (a.off === undefined || a.cmp === undefined) unknownProgress.push(event.apiId);
      }
      const [owners, progress] = await Promise.all([
        registerApisFromEvents(redis, this.deps.prefix, unregistered),
        readApiProgress(redis, space, field, unknownProgress),
      ]);
      if (this.epoch !== epoch) return conflict('redis-reset', 'while reading progress');
      unregistered.forEach(({ apiId }, n) => {
        this.owners.set(apiId, owners[n]!);
        apis.get(apiId)!.owner = owners[n];
      });
      unknownProgress.forEach((apiId, n) => {
        // A concurrent batch of another partition never touches this partition's offsets, so
        // what was just read is the truth; cmp may be newer than the cache: keep the newest read.
        offs.set(apiId, progress.off[n]!);
        this.cmps.set(apiId, progress.cmp[n]!);
        const a = apis.get(apiId)!;
        a.off = progress.off[n];
        a.cmp = progress.cmp[n];
      });

      const missing = new Map<string, MissingValues>();
      const countable: Deferred[] = [];
      for (const d of deferred) {
        const { event: e } = d;
        const a = apis.get(e.apiId)!;
        if (d.offset <= a.off!) {
          skipped++;
          continue;
        }
        if (isExpired(e, ctx)) {
          toDead(d.message, 'expired', expiredDetail(e.time));
          continue;
        }
        if (e.workspaceId !== a.owner) {
          toDead(d.message, 'workspace_mismatch', `API ${e.apiId} belongs to another workspace`);
          continue;
        }
        countable.push(d);
        let miss = missing.get(e.apiId);
        if (!a.codes.k.has(e.keyId)) (miss ??= emptyMissing()).k.add(e.keyId);
        if (!a.codes.s.has(e.tagSet)) (miss ??= emptyMissing()).s.add(e.tagSet);
        if (e.identity !== undefined && !a.codes.i.has(e.identity))
          (miss ??= emptyMissing()).i.add(e.identity);
        if (miss) missing.set(e.apiId, miss);
      }
      if (missing.size > 0) {
        await this.dicts.assign(missing);
        if (this.epoch !== epoch) return conflict('redis-reset', 'while assigning codes');
        // assign() may have started the caches over (size bound): look them up again.
        for (const apiId of missing.keys()) apis.get(apiId)!.codes = this.dicts.codesOf(apiId);
      }
      for (const { event: e } of countable) {
        const a = apis.get(e.apiId)!;
        const i = e.identity === undefined ? -1 : a.codes.i.get(e.identity)!;
        a.counter.add(e.hour, a.codes.k.get(e.keyId)!, i, a.codes.s.get(e.tagSet)!, e.o);
      }
    }

    // 3. Dead letters before anything of the batch is applied (awaited).
    if (dead.length > 0) await this.deps.deadLetter(dead);

    // 4. Increments per API.
    const prepared: PreparedApi[] = [];
    for (const [apiId, a] of apis) {
      if (a.counter.size === 0) continue;
      const cmp = a.cmp!;
      prepared.push({
        apiId,
        counter: a.counter,
        cmp,
        increments: expand(a.counter, { now, retention, cmp }),
      });
    }
    return {
      status: 'prepared',
      topic: batch.topic,
      partition: batch.partition,
      field,
      lastOffset: batch.lastOffset,
      epoch,
      space,
      now,
      apis: prepared,
      skipped,
      deadLettered: dead.length,
    };
  }

  async commit(p: PreparedBatch, wm: number): Promise<Applied | Conflict> {
    const { redis, retention } = this.deps;
    const offs = this.offsetsOf(p.field);
    let applied = 0;
    let pending = p.apis;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > CMP_RETRIES) {
        return conflict('cmp-retries', `cmp kept moving for ${pending.map((a) => a.apiId).join(',')}`);
      }
      if (this.epoch !== p.epoch) return conflict('redis-reset', 'before applying');
      const applies: ApiApply[] = [];
      for (const a of pending) {
        const expectedOff = offs.get(a.apiId);
        if (expectedOff === undefined) return conflict('off', `${a.apiId}: progress forgotten meanwhile`);
        applies.push({
          apiId: a.apiId,
          increments: a.increments,
          cas: { offsetField: p.field, expectedOff, newOff: p.lastOffset, expectedCmp: a.cmp },
        });
      }
      const results = await applyApiBatches(redis, p.space, applies);
      const retry: PreparedApi[] = [];
      let failed: Conflict | undefined;
      for (let n = 0; n < results.length; n++) {
        const result = results[n]!;
        const a = pending[n]!;
        if (result.status === 'ok') {
          offs.set(a.apiId, p.lastOffset);
          applied += a.increments.events;
        } else if (result.status === 'cmp') {
          // The compactor moved on: split the hours again with the new cmp.
          this.cmps.set(a.apiId, result.actual);
          const cmp = result.actual;
          retry.push({ ...a, cmp, increments: expand(a.counter, { now: p.now, retention, cmp }) });
        } else if (result.status === 'sealed') {
          // A rebuild is switching to a new generation: re-read the partition (and, once <p>:gen moved,
          // the generation) and try again; nothing of this API was written.
          failed ??= conflict('sealed', `${a.apiId}: sealed in generation ${p.space.generation}`);
        } else if (result.status === 'off') {
          failed ??= conflict(
            'off',
            `${a.apiId}: off is ${result.actual}, expected ${applies[n]!.cas.expectedOff}`,
          );
        } else {
          failed = conflict(
            'dict',
            `${a.apiId}: dictionary ${result.dict} has ${result.length} entries, fewer than used`,
          );
        }
      }
      if (failed) {
        if (failed.cause === 'dict') this.reset('a dictionary is shorter than its cached codes');
        else this.forgetPartition(p.topic, p.partition);
        return failed;
      }
      pending = retry;
    }

    if (this.epoch !== p.epoch) return conflict('redis-reset', 'before the watermark');
    const moved = await advanceWatermark(redis, p.space, p.topic, p.partition, wm, p.lastOffset);
    if (!moved.ok) {
      this.forgetPartition(p.topic, p.partition);
      return conflict('wm', `wm is ${moved.actual}, expected ${wm}`);
    }
    return { status: 'applied', applied, skipped: p.skipped, deadLettered: p.deadLettered };
  }

  /** prepare + commit, for callers without pipelining (tests). */
  async process(batch: PartitionBatch, wm: number): Promise<Applied | Conflict> {
    const prepared = await this.prepare(batch, wm);
    return prepared.status === 'prepared' ? this.commit(prepared, wm) : prepared;
  }

  private offsetsOf(field: string): Map<string, number> {
    let offs = this.offs.get(field);
    if (!offs) {
      offs = new Map();
      this.offs.set(field, offs);
    }
    return offs;
  }
}

const conflict = (cause: ConflictCause, detail: string): Conflict => ({ status: 'conflict', cause, detail });
