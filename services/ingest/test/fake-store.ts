/**
 * An in-memory StorePort for unit tests of the ingest core: the same CAS rules as the Lua scripts
 * (applyApiBatch: off, then cmp, then dictionary lengths, then the alert rules' version; advanceWatermark),
 * the same alert detection (counters per generation, crossings appended once), with hooks to make it
 * fail the way Redis and other writers do (a crash mid-pipeline, lost writes, a compactor moving).
 */
import type { AlertRule } from '@va/contracts';
import type {
  AlertIncrements,
  AlertRules,
  ApiCodes,
  CrossingFields,
  KeySpace,
  MissingValues,
} from '@va/store';
import type {
  AlertLevels,
  AppliedOffset,
  ApplyOutcome,
  ConfirmOutcome,
  PlannedApply,
  StorePort,
} from '../src/core/ports';
import type { Offset } from '../src/core/types';

type Dicts = Record<'k' | 'i' | 's', string[]>;

export class FakeStore implements StorePort {
  generation = 1;
  readonly owners = new Map<string, string>();
  /** apiId -> "<topic>/<partition>" -> off */
  readonly offs = new Map<string, Map<string, number>>();
  readonly cmps = new Map<string, number>();
  readonly dicts = new Map<string, Dicts>();
  /** apiId -> events counted (what the counters' totals would sum to) */
  readonly counted = new Map<string, number>();
  readonly wms = new Map<string, number>();
  /** apiId -> resolutions written ('h', 'd', 'm') */
  readonly resolutions = new Map<string, Set<string>>();
  /** Round trips to the store, by operation. */
  readonly calls = { apply: 0, applyScripts: 0, watermark: 0, progress: 0, assign: 0, confirm: 0 };
  /** No replica acknowledges: apply() writes, then rejects (as a failed WAIT does); so does confirmApplied(). */
  replicasDown = false;
  /** Runs before confirmApplied checks the offsets (e.g. a failover loses writes meanwhile). */
  beforeConfirm: (() => void) | undefined;
  /** This many more API applies succeed, then apply() rejects (the worker or Redis died mid-pipeline). */
  crashAfterApplies: number | undefined;
  /** APIs a rebuild retired in this generation (apply refuses them). */
  readonly retired = new Set<string>();
  /** Runs before each API's apply script (e.g. another writer acts meanwhile). */
  beforeApply: ((apply: PlannedApply) => void) | undefined;
  /** apiId -> its billing zones (billing-zones.ts), in order. */
  readonly billingZones = new Map<string, string[]>();
  /** "<generation>|<apiId>|<n>" -> the zone's since (applyApiBatch.lua's rule: recordSince). */
  readonly billingZoneSinces = new Map<string, number>();
  /** apiId -> its alert rules and their version (alert-rules.ts). */
  readonly alertRules = new Map<string, AlertRules>();
  /** "<generation>|<apiId>|<counterId>|<periodStart>" -> member -> count (generation-scoped, as in Redis). */
  readonly alertCounters = new Map<string, Map<string, number>>();
  /** Crossings appended: "<apiId>|<period>|<periodStart>|<ruleId>|<level>|<member>" (not generation-scoped). */
  readonly recordedCrossings = new Set<string>();
  /** "<apiId>|<version>" -> the level table of that rules version ("<counterId>:<level>" -> rule ids). */
  readonly levelTables = new Map<string, ReadonlyMap<string, readonly string[]>>();
  /** apiId -> the crossings stream, in order. */
  readonly crossings = new Map<string, CrossingFields[]>();
  private readonly resetListeners: (() => void)[] = [];

  readGeneration = () => Promise.resolve(this.generation);

  registerApis(claims: readonly { apiId: string; workspaceId: string }[]): Promise<string[]> {
    return Promise.resolve(
      claims.map(({ apiId, workspaceId }) => {
        if (!this.owners.has(apiId)) this.owners.set(apiId, workspaceId);
        return this.owners.get(apiId)!;
      }),
    );
  }

  readProgress(_space: KeySpace, field: string, apiIds: readonly string[]) {
    this.calls.progress++;
    return Promise.resolve({
      off: apiIds.map((a) => this.offOf(a, field)),
      cmp: apiIds.map((a) => this.cmps.get(a) ?? null),
    });
  }

  /** Stores a rule as alert-rules.ts createAlertRule does: the version moves; returns it. */
  createAlertRule(rule: AlertRule): number {
    const before = this.alertRules.get(rule.apiId) ?? { version: 0, rules: [] };
    const version = before.version + 1;
    this.alertRules.set(rule.apiId, { version, rules: [...before.rules, rule] });
    return version;
  }

  readBillingZones(apiIds: readonly string[]): Promise<string[][]> {
    return Promise.resolve(apiIds.map((a) => [...(this.billingZones.get(a) ?? [])]));
  }

  readAlertRules(apiIds: readonly string[]): Promise<AlertRules[]> {
    return Promise.resolve(apiIds.map((a) => this.alertRules.get(a) ?? { version: 0, rules: [] }));
  }

  writeAlertLevels(tables: readonly AlertLevels[]): Promise<void> {
    for (const { apiId, version, table } of tables)
      this.levelTables.set(`${apiId}|${version}`, new Map(table));
    return Promise.resolve();
  }

  assignCodes(_space: KeySpace, missing: ReadonlyMap<string, MissingValues>): Promise<Map<string, ApiCodes>> {
    this.calls.assign++;
    const out = new Map<string, ApiCodes>();
    for (const [apiId, perDict] of missing) {
      const dicts = this.dictsOf(apiId);
      const codes: ApiCodes = { k: new Map(), i: new Map(), s: new Map() };
      for (const d of ['k', 'i', 's'] as const) {
        for (const value of perDict[d]) {
          let code = dicts[d].indexOf(value);
          if (code < 0) code = dicts[d].push(value) - 1;
          codes[d].set(value, code);
        }
      }
      out.set(apiId, codes);
    }
    return Promise.resolve(out);
  }

  async apply(space: KeySpace, applies: readonly PlannedApply[]): Promise<ApplyOutcome[]> {
    this.calls.apply++;
    const out: ApplyOutcome[] = [];
    for (const a of applies) {
      if (this.crashAfterApplies === 0) {
        this.crashAfterApplies = undefined;
        throw new Error('connection lost mid-pipeline');
      }
      if (this.crashAfterApplies !== undefined) this.crashAfterApplies--;
      this.beforeApply?.(a);
      this.calls.applyScripts++;
      out.push(this.applyOne(space, a));
    }
    if (this.replicasDown) throw new Error('WAIT: 0 of 1 replicas acknowledged the writes');
    return Promise.resolve(out);
  }

  confirmApplied(_space: KeySpace, offsets: readonly AppliedOffset[]): Promise<ConfirmOutcome[]> {
    this.calls.confirm++;
    this.beforeConfirm?.();
    const out = offsets.map(({ apiId, offsetField, off }): ConfirmOutcome => {
      const actual = this.offOf(apiId, offsetField);
      return actual === off ? { status: 'ok' } : { status: 'off', actual };
    });
    if (this.replicasDown) return Promise.reject(new Error('WAIT: 0 of 1 replicas acknowledged the writes'));
    return Promise.resolve(out);
  }

  readWatermark(_space: KeySpace, topic: string, partition: number): Promise<Offset> {
    return Promise.resolve(this.wms.get(`${topic}/${partition}`) ?? null);
  }

  advanceWatermark(_space: KeySpace, topic: string, partition: number, expected: Offset, next: number) {
    this.calls.watermark++;
    const field = `${topic}/${partition}`;
    const actual = this.wms.get(field) ?? null;
    if (actual !== expected) return Promise.resolve({ ok: false as const, actual });
    this.wms.set(field, next);
    return Promise.resolve({ ok: true as const });
  }

  /** The change signals published, in order (publishChanges). */
  readonly published: { generation: number; apiIds: string[] }[] = [];

  publishChanges(space: KeySpace, apiIds: readonly string[]): Promise<void> {
    this.published.push({ generation: space.generation, apiIds: [...apiIds] });
    return Promise.resolve();
  }

  /** includes/alertCounters.lua: add to the counters, append each level crossed once. */
  private detect(
    space: KeySpace,
    apiId: string,
    alerts: AlertIncrements,
    table: ReadonlyMap<string, readonly string[]>,
  ): void {
    for (const c of alerts.counters) {
      const key = `${space.generation}|${apiId}|${c.counterId}|${c.periodStart}`;
      let counts = this.alertCounters.get(key);
      if (!counts) this.alertCounters.set(key, (counts = new Map()));
      for (const [member, n] of c.members) {
        const old = counts.get(member) ?? 0;
        counts.set(member, old + n);
        for (const level of c.levels) {
          if (level <= old || level > old + n) continue;
          for (const ruleId of table.get(`${c.counterId}:${level}`) ?? []) {
            const tuple = `${apiId}|${c.period}|${c.periodStart}|${ruleId}|${level}|${member}`;
            if (this.recordedCrossings.has(tuple)) continue;
            this.recordedCrossings.add(tuple);
            const { period, periodStart } = c;
            const stream = this.crossings.get(apiId) ?? [];
            this.crossings.set(apiId, stream);
            stream.push({
              ruleId,
              member,
              period,
              periodStart,
              level,
              count: old + n,
              detectedAt: alerts.now,
            });
          }
        }
      }
    }
  }

  onReset(listener: () => void): () => void {
    this.resetListeners.push(listener);
    return () => {
      const at = this.resetListeners.indexOf(listener);
      if (at >= 0) this.resetListeners.splice(at, 1);
    };
  }

  /** The connection closed (Redis restarted): the core must drop its caches. */
  closeConnection(): void {
    for (const l of this.resetListeners) l();
  }

  offOf(apiId: string, field: string): Offset {
    return this.offs.get(apiId)?.get(field) ?? null;
  }

  dictsOf(apiId: string): Dicts {
    let d = this.dicts.get(apiId);
    if (!d) this.dicts.set(apiId, (d = { k: [], i: [], s: [] }));
    return d;
  }

  private applyOne(space: KeySpace, a: PlannedApply): ApplyOutcome {
    if (this.retired.has(a.apiId)) return { status: 'retired', generation: this.generation + 1 };
    const off = this.offOf(a.apiId, a.offsetField);
    if (off !== a.expectedOff) return { status: 'off', actual: off };
    const cmp = this.cmps.get(a.apiId) ?? null;
    if (cmp !== a.expectedCmp) return { status: 'cmp', actual: cmp };
    const dicts = this.dictsOf(a.apiId);
    for (const d of ['k', 'i', 's'] as const) {
      if (dicts[d].length < a.increments.required[d])
        return { status: 'dict', dict: d, length: dicts[d].length };
    }
    const rulesVersion = this.alertRules.get(a.apiId)?.version ?? 0;
    if (a.alerts) {
      const table = this.levelTables.get(`${a.apiId}|${a.alerts.rulesVersion}`);
      if (a.alerts.rulesVersion !== rulesVersion || (a.alerts.counters.length > 0 && !table))
        return { status: 'rules', version: rulesVersion };
      this.detect(space, a.apiId, a.alerts, table ?? new Map());
    }
    this.counted.set(a.apiId, (this.counted.get(a.apiId) ?? 0) + a.increments.events);
    let rs = this.resolutions.get(a.apiId);
    if (!rs) this.resolutions.set(a.apiId, (rs = new Set()));
    for (const b of a.increments.buckets) rs.add(b.r);
    let offs = this.offs.get(a.apiId);
    if (!offs) this.offs.set(a.apiId, (offs = new Map()));
    this.recordSince(space, a.apiId, a.increments.billingZones ?? -1, offs.size === 0);
    offs.set(a.offsetField, a.newOff);
    return { status: 'ok' };
  }

  /** applyApiBatch.lua's billing zones' since (docs/design.md "Billing zones"); `first`: no offset applied before. */
  private recordSince(space: KeySpace, apiId: string, zones: number, first: boolean): void {
    if (zones < 0) return;
    const key = (n: number) => `${space.generation}|${apiId}|${n}`;
    let known = 0;
    while (this.billingZoneSinces.has(key(known + 1))) known++;
    if (zones === known) return;
    const later = Date.now() + 360_000;
    for (let n = zones + 1; n <= known; n++)
      this.billingZoneSinces.set(key(n), Math.max(this.billingZoneSinces.get(key(n))!, later));
    for (let n = known + 1; n <= zones; n++) this.billingZoneSinces.set(key(n), first ? 0 : later);
  }
}
