/**
 * Events written to the store the way the ingest worker writes them (codes, pre-aggregation, applyApiBatch
 * with both CAS), for the compaction tests: one writer per API, its offsets counting from 0.
 */
import { expect } from 'vitest';
import { DAY_MS, type EdgeResolution, type Retention } from '@va/core';
import { expand, TupleCounter } from '../aggregate';
import { applyApiBatches } from '../apply';
import { applyApiBatch } from '../scripts/apply-scripts';
import { readCompactedThrough } from '../compaction';
import type { RedisClient } from '../connection';
import { DictionaryWriter, emptyMissing } from '../dictionary';
import type { KeySpace } from '../keys';

/** The retention the store tests write with: hours 35 days, days 400, months 5 years. */
export const TEST_RETENTION: Retention = {
  hourMs: 35 * DAY_MS,
  dayMs: 400 * DAY_MS,
  monthMs: 5 * 366 * DAY_MS,
};

export interface TestEvent {
  hour: number;
  key: string;
  tags?: string[];
  identity?: string;
  outcome: number;
  /** Its minute (minute index, inside `hour`): counted in that minute's bucket too, as live events are. */
  minute?: number;
  /** The billing zones' edges whose window holds it (EdgeFinder.at): counted in each, as the worker does. */
  edges?: readonly EdgeOf[];
}

/** An edge bucket an event is counted in. */
export interface EdgeOf {
  res: EdgeResolution;
  index: number;
}

/** Writes events the way the ingest worker does: codes, pre-aggregation, applyApiBatch with both CAS. */
export class Ingest {
  private offset = -1;
  private readonly dicts: DictionaryWriter;
  constructor(
    private readonly redis: RedisClient,
    private readonly space: KeySpace,
    private readonly retention: Retention,
    private readonly apiId: string,
    private readonly now: number,
  ) {
    this.dicts = new DictionaryWriter(redis, space);
  }

  async write(events: readonly TestEvent[]): Promise<void> {
    const missing = emptyMissing();
    for (const e of events) {
      missing.k.add(e.key);
      missing.s.add([...(e.tags ?? [])].sort().join(','));
      if (e.identity) missing.i.add(`${e.identity}\nx-${e.identity}`);
    }
    await this.dicts.assign(new Map([[this.apiId, missing]]));
    const codes = this.dicts.codesOf(this.apiId);
    const counter = new TupleCounter();
    for (const e of events) {
      const i = e.identity ? codes.i.get(`${e.identity}\nx-${e.identity}`)! : -1;
      const s = codes.s.get([...(e.tags ?? [])].sort().join(','))!;
      counter.add(e.hour, codes.k.get(e.key)!, i, s, e.outcome);
      if (e.minute !== undefined) counter.addMinute(e.minute, codes.k.get(e.key)!, i, s, e.outcome);
      for (const edge of e.edges ?? [])
        counter.addEdge(edge.res, edge.index, codes.k.get(e.key)!, i, s, e.outcome);
    }
    const cmp = (await readCompactedThrough(this.redis, this.space, this.apiId)) ?? -1;
    const increments = expand(counter, { now: this.now, retention: this.retention, cmp });
    const [result] = await applyApiBatches(this.redis, this.space, [
      {
        apiId: this.apiId,
        increments,
        cas: { offsetField: 'test/0', expectedOff: this.offset, newOff: this.offset + 1, expectedCmp: cmp },
      },
    ]);
    expect(result).toEqual({ status: 'ok' });
    this.offset++;
  }
}

/**
 * One late event (key code 0, no identity, tag set code 0, outcome 1) of `hour` (and of `minute` in it, when
 * given) as applyApiBatch writes it with a bound of one write per call: its day and month in the call, the
 * rest staged (checked). Offsets on the field "late/0".
 */
export async function writeStagedEvent(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  at: { hour: number; minute?: number; edges?: readonly EdgeOf[] },
  options: { now: number; retention: Retention },
): Promise<void> {
  const counter = new TupleCounter();
  counter.add(at.hour, 0, -1, 0, 1);
  if (at.minute !== undefined) counter.addMinute(at.minute, 0, -1, 0, 1);
  for (const edge of at.edges ?? []) counter.addEdge(edge.res, edge.index, 0, -1, 0, 1);
  const compacted = await readCompactedThrough(redis, space, apiId);
  const increments = expand(counter, { ...options, cmp: compacted });
  const cas = { offsetField: 'late/0', expectedOff: null, newOff: 0, expectedCmp: compacted };
  const call = await applyApiBatch(redis, { space, apiId, increments, cas, maxWrites: 1 });
  expect(call.result).toEqual({ status: 'ok' });
  expect(call.staged).toBeGreaterThan(0);
}
