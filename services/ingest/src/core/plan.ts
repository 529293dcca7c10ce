/**
 * Planning the writes of a batch (pure): per API, the pre-aggregated increments (expand), the
 * CAS-checked apply, and what each apply's outcome means for the next step.
 */
import { expand, type TupleCounter, type WriteContext } from '@va/store';
import { alertIncrements, type ApiAlertRules, type ValueOf } from './alert-increments';
import type { Retention } from '@va/core';
import type { ApplyOutcome, PlannedApply } from './ports';
import { conflict, type Conflict, type HourIndex, type Offset, type PreparedApi } from './types';

/** What expand needs besides an API's cmp: the batch's clock and the write rules. */
export interface ExpandContext {
  now: number;
  retention: Retention;
  /** aggregate.ts WriteContext.partsMinRows (unset: the store's default). */
  partsMinRows?: number | undefined;
}

const writeContext = (ctx: ExpandContext, cmp: HourIndex): WriteContext => ({
  now: ctx.now,
  retention: ctx.retention,
  cmp,
  ...(ctx.partsMinRows !== undefined && { partsMinRows: ctx.partsMinRows }),
});

/**
 * Expands every non-empty counter with its API's cmp (the hour/rollup split), and its alert counters'
 * increments with the API's rules (alert-increments.ts).
 */
export function prepareApis(
  counters: ReadonlyMap<string, TupleCounter>,
  cmpOf: (apiId: string) => HourIndex,
  alerts: { rulesOf: (apiId: string) => ApiAlertRules; valuesOf: (apiId: string) => ValueOf },
  ctx: ExpandContext,
): PreparedApi[] {
  const out: PreparedApi[] = [];
  for (const [apiId, counter] of counters) {
    if (counter.size === 0) continue;
    const cmp = cmpOf(apiId);
    const valueOf = alerts.valuesOf(apiId);
    out.push({
      apiId,
      counter,
      cmp,
      increments: expand(counter, writeContext(ctx, cmp)),
      alerts: alertIncrements(counter, alerts.rulesOf(apiId), valueOf, ctx),
      valueOf,
    });
  }
  return out;
}

/** The same counts with the API's rules read again (they changed since the alerts were computed). */
export const realert = (api: PreparedApi, rules: ApiAlertRules, ctx: ExpandContext): PreparedApi => ({
  ...api,
  alerts: alertIncrements(api.counter, rules, api.valueOf, ctx),
});

/** The same counts split again with another cmp (the compactor moved on). */
export function reexpand(api: PreparedApi, cmp: HourIndex, ctx: ExpandContext): PreparedApi {
  return { ...api, cmp, increments: expand(api.counter, writeContext(ctx, cmp)) };
}

/** One apply per API; a conflict when the believed off of an API is unknown (forgotten meanwhile). */
export function planApplies(
  apis: readonly PreparedApi[],
  offOf: (apiId: string) => Offset | undefined,
  offsetField: string,
  lastOffset: number,
): PlannedApply[] | Conflict {
  const out: PlannedApply[] = [];
  for (const a of apis) {
    const expectedOff = offOf(a.apiId);
    if (expectedOff === undefined) return conflict('off', `${a.apiId}: progress forgotten meanwhile`);
    out.push({
      apiId: a.apiId,
      increments: a.increments,
      offsetField,
      expectedOff,
      newOff: lastOffset,
      expectedCmp: a.cmp,
      alerts: a.alerts,
    });
  }
  return out;
}

export interface ApplyRound {
  /** APIs whose apply succeeded (off[api] is now the batch's last offset). */
  done: string[];
  /** Events counted by the successful applies. */
  events: number;
  /** APIs to apply again with the cmp Redis holds (the compactor moved on). */
  retry: { api: PreparedApi; cmp: HourIndex }[];
  /** APIs to apply again with their alert rules read again (created or deleted meanwhile). */
  staleRules: PreparedApi[];
  /** The first off, retired or dict failure: the batch stops; dict means cached codes are wrong. */
  failed: Conflict | undefined;
}

/** What the outcomes of one round of applies mean (pure). */
export function readOutcomes(
  applies: readonly PlannedApply[],
  apis: readonly PreparedApi[],
  outcomes: readonly ApplyOutcome[],
): ApplyRound {
  const round: ApplyRound = { done: [], events: 0, retry: [], staleRules: [], failed: undefined };
  outcomes.forEach((outcome, n) => {
    const a = apis[n]!;
    if (outcome.status === 'ok') {
      round.done.push(a.apiId);
      round.events += a.increments.events;
    } else if (outcome.status === 'cmp') {
      round.retry.push({ api: a, cmp: outcome.actual });
    } else if (outcome.status === 'rules') {
      round.staleRules.push(a);
    } else if (outcome.status === 'retired') {
      // A rebuild is switching to a new generation: re-read the partition (and, once <p>:gen moved,
      // the generation) and try again; nothing of this API was written.
      round.failed ??= conflict(
        'retired',
        `${a.apiId}: retired, switching to generation ${outcome.generation}`,
      );
    } else if (outcome.status === 'off') {
      round.failed ??= conflict(
        'off',
        `${a.apiId}: off is ${String(outcome.actual)}, expected ${String(applies[n]!.expectedOff)}`,
      );
    } else {
      round.failed = conflict(
        'dict',
        `${a.apiId}: dictionary ${outcome.dict} has ${outcome.length} entries, fewer than used`,
      );
    }
  });
  return round;
}
