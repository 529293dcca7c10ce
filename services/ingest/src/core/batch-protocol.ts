/**
 * The exactly-once write protocol of docs/design.md for one partition batch, over the StorePort
 * (Redis in production, a fake in unit tests), in two steps so that the worker can overlap them
 * across batches:
 *
 *   prepare(batch, wm)   classify (decode, validate, skip, defer), dead-letter (awaited), register
 *                        new APIs, load the progress and codes it lacks, pre-aggregate. Skips what
 *                        the store already holds (offsets <= wm, and per API <= off[api]).
 *   commit(prepared, wm) one apply per API (pipelined, CAS on off/cmp/dictionaries), then the wm
 *                        CAS, then the change signal (the batch's APIs, not awaited). Says `applied`,
 *                        or `conflict`: the partition must be re-synchronized from the store (another
 *                        worker owns it, or Redis lost writes).
 *
 * Commits of one partition must run one after the other, each with the wm the previous one set.
 * The decisions are pure functions (classify.ts, plan.ts); this class holds the caches and does
 * the round trips.
 *
 * Caches (each only saves round trips; every one is checked by a CAS in the store):
 *   owners  apiId -> workspace                      (registration; immutable once set)
 *   offs    "<topic>/<partition>" -> apiId -> off    (dropped per partition on any doubt)
 *   cmps    apiId -> last compacted hour             (refreshed when the cmp CAS fails)
 *   codes   apiId -> dictionary -> value -> code     (CodeCache)
 *   rules   apiId -> alert rules at a version        (re-read when applyApiBatch answers `rules`)
 *   zones   apiId -> billing zones                   (re-read after BILLING_ZONE_CACHE_MS: billing-zones.ts)
 * All are dropped when the store resets (`epoch`): a Redis that restarted may have lost its last
 * second, and a code cached from it may have been given to another value since.
 */
import type { Logger } from '@va/runtime';
import { partitionField, type KeySpace } from '@va/store';
import type { Retention } from '@va/core';
import type { DeadLetter } from '../dead-letter';
import { decodeContext, type ValidEvent } from '../decode';
import {
  classifyBatch,
  classifyDeferred,
  codesOfEvent,
  countEvent,
  unknownsOf,
  type ApiView,
  type EventCodes,
} from './classify';
import { BillingZoneCache } from './billing-zones';
import { CodeCache } from './code-cache';
import { compileAlertRules, type ApiAlertRules } from './alert-increments';
import { planApplies, prepareApis, readOutcomes, realert, reexpand } from './plan';
import type { StorePort } from './ports';
import {
  conflict,
  type Applied,
  type Conflict,
  type HourIndex,
  type Offset,
  type PartitionBatch,
  type PreparedBatch,
} from './types';

export interface BatchProtocolDeps {
  store: StorePort;
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
  /**
   * Rows from which a closed bucket's cube is written as a section part (libs/store aggregate.ts
   * PARTS_MIN_ROWS; Infinity = never). Unset: the store's default. Tests vary it to reach both forms.
   */
  partsMinRows?: number;
}

/** The compactor moves cmp about once an hour: a few retries settle any race with it. */
const CMP_RETRIES = 5;

export class BatchProtocol {
  private epoch = 0;
  private space: KeySpace | undefined;
  private spaceEpoch = -1;
  private owners = new Map<string, string>();
  private offs = new Map<string, Map<string, Offset>>();
  private cmps = new Map<string, HourIndex>();
  private alertRules = new Map<string, ApiAlertRules>();
  private readonly codes = new CodeCache();
  private readonly zones = new BillingZoneCache();
  private readonly resetListeners: (() => void)[] = [];
  private readonly store: StorePort;
  private readonly stopResets: () => void;

  constructor(private readonly deps: BatchProtocolDeps) {
    this.store = deps.store;
    this.stopResets = this.store.onReset(() => this.reset('redis connection closed'));
  }

  /**
   * Stops listening to the store's connection. For a processor that is done while its client lives on
   * (@va/testkit's seeding makes one per call on a shared client: each left a listener, and its caches,
   * behind).
   */
  detach(): void {
    this.stopResets();
  }

  /** Called after every reset: the worker then re-reads every partition's wm. */
  onReset(listener: () => void): void {
    this.resetListeners.push(listener);
  }

  /** Forget everything learned from the store. */
  reset(why: string): void {
    this.epoch++;
    this.owners = new Map();
    this.offs = new Map();
    this.cmps = new Map();
    this.alertRules = new Map();
    this.codes.clear();
    this.zones.clear();
    this.deps.logger?.warn({ why, epoch: this.epoch }, 'ingest caches dropped');
    for (const listener of this.resetListeners) listener();
  }

  /** Forget the per-API offsets of one partition (before re-reading its wm). */
  forgetPartition(topic: string, partition: number): void {
    this.offs.delete(partitionField(topic, partition));
  }

  /** The key space of the current generation (read once per store epoch). */
  async keySpace(): Promise<KeySpace> {
    if (this.space === undefined || this.spaceEpoch !== this.epoch) {
      const epoch = this.epoch;
      const generation = this.deps.generation ?? (await this.store.readGeneration());
      this.space = { prefix: this.deps.prefix, generation };
      this.spaceEpoch = epoch;
      this.codes.clear();
    }
    return this.space;
  }

  /** The partition's wm as the store holds it (null = none). */
  async readWatermark(topic: string, partition: number): Promise<Offset> {
    return this.store.readWatermark(await this.keySpace(), topic, partition);
  }

  /**
   * True when `<p>:gen` moved away from the generation being written (a rebuild switched): every
   * cache is dropped then (reset), so that each partition re-reads its wm in the new generation
   * and resumes from there. One GET; never true with a fixed generation.
   */
  async generationSwitched(): Promise<boolean> {
    if (this.deps.generation !== undefined || this.space === undefined) return false;
    if (this.spaceEpoch !== this.epoch) return false; // already reset: keySpace() reads it again
    const current = await this.store.readGeneration();
    if (current === this.space.generation || this.spaceEpoch !== this.epoch) return false;
    this.reset(`generation switched from ${this.space.generation} to ${current}`);
    return true;
  }

  async prepare(batch: PartitionBatch, wm: Offset): Promise<PreparedBatch | Conflict> {
    const { retention } = this.deps;
    const epoch = this.epoch;
    const space = await this.keySpace();
    const now = this.deps.clock();
    const field = partitionField(batch.topic, batch.partition);
    const offs = this.offsetsOf(field);
    const ctx = decodeContext(now, retention);
    this.codes.makeRoom(); // here, not mid-batch: codes looked up below stay valid until counted
    const viewOf = (apiId: string): ApiView => ({
      owner: this.owners.get(apiId),
      off: offs.get(apiId),
      cmp: this.cmps.get(apiId),
      codes: this.codes.codesOf(apiId),
      zones: this.zones.findersOf(apiId, now),
    });
    const skipEvent = this.deps.skipEvent;

    // 1. Classify with what is cached: the common case is counted at once.
    const first = classifyBatch(
      batch,
      wm,
      ctx,
      viewOf,
      skipEvent && ((e, offset) => skipEvent(e, field, offset)),
    );
    this.zones.refreshAging(this.store, first.counters.keys(), now);
    const dead = first.dead;
    let skipped = first.skipped;
    const foundApplied = first.foundApplied;

    // 2. The deferred events: registration of new APIs (first workspace wins), progress (off, cmp) and
    //    billing zones of APIs not cached (or zones too old), in one round trip; then the missing codes.
    if (first.deferred.length > 0) {
      const { unregistered, unknownProgress, unknownZones } = unknownsOf(first.deferred, viewOf);
      const [owners, progress, zones] = await Promise.all([
        this.store.registerApis(unregistered),
        this.store.readProgress(space, field, unknownProgress),
        this.store.readBillingZones(unknownZones),
      ]);
      if (this.epoch !== epoch) return conflict('redis-reset', 'while reading progress');
      unregistered.forEach(({ apiId }, n) => this.owners.set(apiId, owners[n]!));
      unknownProgress.forEach((apiId, n) => {
        // A concurrent batch of another partition never touches this partition's offsets, so
        // what was just read is the truth; cmp may be newer than the cache: keep the newest read.
        offs.set(apiId, progress.off[n]!);
        this.cmps.set(apiId, progress.cmp[n]!);
      });
      unknownZones.forEach((apiId, n) => this.zones.set(apiId, zones[n]!, now));

      const second = classifyDeferred(batch, first.deferred, ctx, viewOf);
      dead.push(...second.dead);
      skipped += second.skipped;
      for (const apiId of second.foundApplied) foundApplied.add(apiId);
      if (second.missing.size > 0) {
        const assigned = await this.store.assignCodes(space, second.missing);
        if (this.epoch !== epoch) return conflict('redis-reset', 'while assigning codes');
        this.codes.add(assigned);
      }
      const codes: EventCodes = { k: 0, i: 0, s: 0 };
      for (const { event } of second.countable) {
        if (!codesOfEvent(event, this.codes.codesOf(event.apiId), codes))
          throw new Error(`a value of ${event.apiId} has no code after assignCodes`);
        countEvent(first.counters.get(event.apiId)!, event, codes, ctx, viewOf(event.apiId).zones);
      }
    }

    // 3. Dead letters before anything of the batch is applied (awaited).
    if (dead.length > 0) await this.deps.deadLetter(dead);

    // 4. The alert rules of APIs not cached (after a start or a reset; a change is found by the apply).
    const lacking = [...first.counters].filter(([a, c]) => c.size > 0 && !this.alertRules.has(a));
    if (lacking.length > 0) {
      await this.loadAlertRules(lacking.map(([apiId]) => apiId));
      if (this.epoch !== epoch) return conflict('redis-reset', 'while reading alert rules');
    }

    // 5. Increments per API: counters and alert counters.
    const cmpOf = (apiId: string) => this.cmps.get(apiId)!;
    const alerts = {
      rulesOf: (apiId: string) => this.alertRules.get(apiId)!,
      valuesOf: (apiId: string) => this.codes.valuesOf(apiId),
    };
    const apis = prepareApis(first.counters, cmpOf, alerts, {
      now,
      retention,
      partsMinRows: this.deps.partsMinRows,
    });
    return {
      status: 'prepared',
      topic: batch.topic,
      partition: batch.partition,
      field,
      lastOffset: batch.lastOffset,
      epoch,
      space,
      now,
      apis,
      skipped,
      deadLettered: dead.length,
      foundApplied: [...foundApplied],
    };
  }

  async commit(p: PreparedBatch, wm: Offset): Promise<Applied | Conflict> {
    const applied = await this.applyAll(p);
    if (typeof applied !== 'number') return applied;

    const confirmed = await this.confirmFoundApplied(p);
    if (confirmed) return confirmed;
    if (this.epoch !== p.epoch) return conflict('redis-reset', 'before the watermark');
    const moved = await this.store.advanceWatermark(p.space, p.topic, p.partition, wm, p.lastOffset);
    if (!moved.ok) {
      this.forgetPartition(p.topic, p.partition);
      return conflict('wm', `wm is ${String(moved.actual)}, expected ${String(wm)}`);
    }
    this.announce(p);
    return { status: 'applied', applied, skipped: p.skipped, deadLettered: p.deadLettered };
  }

  /**
   * Publishes which APIs the committed batch changed (live streams re-read their queries). Not awaited: the
   * commit is done, and a signal lost to a failing connection is caught up by the streams' periodic re-read.
   */
  private announce(p: PreparedBatch): void {
    if (p.apis.length === 0) return;
    const apiIds = p.apis.map((a) => a.apiId);
    this.store.publishChanges(p.space, apiIds).catch((err: unknown) => {
      this.deps.logger?.debug({ err }, 'change signal not published');
    });
  }

  /**
   * Events found applied by off[api] were written by a commit that did not move the watermark, maybe because
   * its replica wait failed: before the watermark passes them, a replica must hold them (confirmApplied), or
   * a failover could lose them with the watermark saying done. Throws ReplicaAckError when none does (the
   * batch is retried); a conflict when off[api] is no longer what this writer counted on (the retry then
   * reads it again, and applies what a failover lost).
   */
  private async confirmFoundApplied(p: PreparedBatch): Promise<Conflict | undefined> {
    if (p.foundApplied.length === 0) return undefined;
    if (this.epoch !== p.epoch) return conflict('redis-reset', 'before confirming applied events');
    const offs = this.offsetsOf(p.field);
    const offsets = [];
    for (const apiId of p.foundApplied) {
      const off = offs.get(apiId);
      if (off === undefined || off === null) {
        this.forgetPartition(p.topic, p.partition);
        return conflict('off', `off[${apiId}] unknown while confirming applied events`);
      }
      offsets.push({ apiId, offsetField: p.field, off });
    }
    const outcomes = await this.store.confirmApplied(p.space, offsets);
    for (const [n, outcome] of outcomes.entries()) {
      if (outcome.status === 'ok') continue;
      this.forgetPartition(p.topic, p.partition);
      const { apiId, off } = offsets[n]!;
      return conflict('off', `off[${apiId}] is ${String(outcome.actual)}, expected ${off}`);
    }
    return undefined;
  }

  /**
   * Reads and compiles the alert rules of these APIs, and writes the level tables of those that have rules
   * (two round trips; the second only with rules).
   */
  private async loadAlertRules(apiIds: readonly string[]): Promise<void> {
    const read = await this.store.readAlertRules(apiIds);
    const compiled = apiIds.map((apiId, n) => ({
      apiId,
      rules: compileAlertRules(read[n]!.version, read[n]!.rules),
    }));
    const tables = compiled
      .filter(({ rules }) => rules.levelTable.size > 0)
      .map(({ apiId, rules }) => ({ apiId, version: rules.version, table: rules.levelTable }));
    if (tables.length > 0) await this.store.writeAlertLevels(tables);
    for (const { apiId, rules } of compiled) this.alertRules.set(apiId, rules);
  }

  /** One apply per API (retried on a moved cmp or changed rules); the events counted, or the conflict. */
  private async applyAll(p: PreparedBatch): Promise<number | Conflict> {
    const { lastOffset } = p;
    const offs = this.offsetsOf(p.field);
    let applied = 0;
    let pending = p.apis;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > CMP_RETRIES) {
        return conflict('cmp-retries', `cmp kept moving for ${pending.map((a) => a.apiId).join(',')}`);
      }
      if (this.epoch !== p.epoch) return conflict('redis-reset', 'before applying');
      const applies = planApplies(pending, (apiId) => offs.get(apiId), p.field, lastOffset);
      if (!Array.isArray(applies)) return applies;
      const round = readOutcomes(applies, pending, await this.store.apply(p.space, applies));
      for (const apiId of round.done) offs.set(apiId, lastOffset);
      applied += round.events;
      if (round.failed) {
        if (round.failed.cause === 'dict') this.reset('a dictionary is shorter than its cached codes');
        else this.forgetPartition(p.topic, p.partition);
        return round.failed;
      }
      const ctx = { now: p.now, retention: this.deps.retention, partsMinRows: this.deps.partsMinRows };
      // The compactor moved on: split the hours again with the new cmp.
      pending = round.retry.map(({ api, cmp }) => {
        this.cmps.set(api.apiId, cmp);
        return reexpand(api, cmp, ctx);
      });
      // Rules were created or deleted: read them again and count the alerts with them.
      if (round.staleRules.length > 0) {
        await this.loadAlertRules(round.staleRules.map((a) => a.apiId));
        if (this.epoch !== p.epoch) return conflict('redis-reset', 'while reading alert rules');
        for (const api of round.staleRules) pending.push(realert(api, this.alertRules.get(api.apiId)!, ctx));
      }
    }
    return applied;
  }

  /** prepare + commit, for callers without pipelining (tests, seeding). */
  async process(batch: PartitionBatch, wm: Offset): Promise<Applied | Conflict> {
    const prepared = await this.prepare(batch, wm);
    return prepared.status === 'prepared' ? this.commit(prepared, wm) : prepared;
  }

  private offsetsOf(field: string): Map<string, Offset> {
    let offs = this.offs.get(field);
    if (!offs) {
      offs = new Map();
      this.offs.set(field, offs);
    }
    return offs;
  }
}
