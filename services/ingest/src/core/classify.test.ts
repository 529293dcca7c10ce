import { describe, expect, it } from 'vitest';
import { DAY_MS } from '@va/core';
import { decodeContext } from '../decode';
import { classifyBatch, classifyDeferred, type ApiView } from './classify';
import type { BatchMessage, PartitionBatch } from './types';

const NOW = Date.UTC(2026, 10, 20, 12, 0);
const RETENTION = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 400 * DAY_MS };
const ctx = decodeContext(NOW, RETENTION);

function message(offset: number, apiId: string, extra: Record<string, unknown> = {}): BatchMessage {
  const event = {
    requestId: `r${offset}`,
    time: NOW - 60_000,
    workspaceId: 'ws',
    apiId,
    keyId: 'k1',
    outcome: 'VALID',
    ...extra,
  };
  return {
    offset: String(offset),
    key: null,
    value: Buffer.from(JSON.stringify(event)),
    timestamp: String(NOW),
  };
}

const batchOf = (messages: BatchMessage[]): PartitionBatch => ({
  topic: 't',
  partition: 0,
  messages,
  lastOffset: Number(messages[messages.length - 1]!.offset),
});

const known = (
  off: number | null,
  codes: Partial<Record<'k' | 's', string[]>> = { k: ['k1'], s: [''] },
): ApiView => ({
  owner: 'ws',
  off,
  cmp: null,
  codes: {
    k: new Map((codes.k ?? []).map((v, n) => [v, n])),
    i: new Map(),
    s: new Map((codes.s ?? []).map((v, n) => [v, n])),
  },
  zones: [],
});

describe('classifyBatch', () => {
  it('gives each message one verdict: count, skip, defer or dead-letter', () => {
    const views: Record<string, ApiView> = {
      a: known(1), // offsets <= 1 of a are applied
      b: known(null, { k: [], s: [''] }), // k1 has no code yet
      c: { owner: undefined, off: undefined, cmp: undefined, codes: known(null).codes, zones: [] },
      d: known(null),
    };
    const b = batchOf([
      message(0, 'a'), // <= wm: left out
      message(1, 'a'), // <= off[a]: skip
      message(2, 'a'), // count
      message(3, 'b'), // defer (code)
      message(4, 'c'), // defer (progress)
      { offset: '5', key: null, value: Buffer.from('{'), timestamp: String(NOW) }, // not_json
      message(6, 'd', { workspaceId: 'other' }), // workspace_mismatch
      message(7, 'd', { time: NOW - 2000 * DAY_MS }), // expired
    ]);
    const out = classifyBatch(b, 0, ctx, (api) => views[api]!);
    expect(out.skipped).toBe(1);
    expect(out.counters.get('a')!.events).toBe(1);
    expect(out.deferred.map((d) => d.offset)).toEqual([3, 4]);
    expect(out.dead.map((d) => [d.offset, d.reason])).toEqual([
      ['5', 'not_json'],
      ['6', 'workspace_mismatch'],
      ['7', 'expired'],
    ]);
  });

  it('judges each event with its own API view when the APIs of a batch interleave', () => {
    const views: Record<string, ApiView> = { a: known(null), b: known(null, { k: [], s: [''] }) };
    const asked: string[] = [];
    const b = batchOf([message(1, 'a'), message(2, 'a'), message(3, 'b'), message(4, 'a'), message(5, 'b')]);
    const out = classifyBatch(b, 0, ctx, (api) => (asked.push(api), views[api]!));
    expect(out.counters.get('a')!.events).toBe(3);
    expect(out.deferred.map((d) => [d.offset, d.event.apiId])).toEqual([
      [3, 'b'],
      [5, 'b'],
    ]);
    // One view per run of an API, not one per event.
    expect(asked).toEqual(['a', 'b', 'a', 'b']);
  });

  it('the offset check comes before the expiry check: a counted record is skipped however old', () => {
    const late = decodeContext(NOW + 3000 * DAY_MS, RETENTION);
    const out = classifyBatch(batchOf([message(5, 'a')]), null, late, () => known(5));
    expect(out.skipped).toBe(1);
    expect(out.dead).toEqual([]);
  });

  it('deferred events are judged again with the progress read, and list the codes they lack', () => {
    const views: Record<string, ApiView> = {
      c: { owner: undefined, off: undefined, cmp: undefined, codes: known(null).codes, zones: [] },
    };
    const first = classifyBatch(
      batchOf([message(3, 'c'), message(4, 'c', { keyId: 'k2' })]),
      null,
      ctx,
      (a) => views[a]!,
    );
    views.c = known(3);
    const second = classifyDeferred({ topic: 't', partition: 0 }, first.deferred, ctx, (a) => views[a]!);
    expect(second.skipped).toBe(1);
    expect(second.countable.map((d) => d.offset)).toEqual([4]);
    expect([...second.missing.get('c')!.k]).toEqual(['k2']);
  });
});

describe('classifyBatch: minute counts (groupBy=minute)', () => {
  const withMinutes = decodeContext(NOW, { ...RETENTION, minuteMs: 48 * 3_600_000 });

  it('counts an event within the minute retention in its minute too, an older one in its hour only', () => {
    const recent = NOW - 47 * 3_600_000;
    const old = NOW - 49 * 3_600_000;
    const b = batchOf([message(0, 'a', { time: recent }), message(1, 'a', { time: old })]);
    const { counters } = classifyBatch(b, null, withMinutes, () => known(null));
    const counter = counters.get('a')!;
    expect(counter.events).toBe(2);
    const minutes: number[] = [];
    counter.minuteTuples()?.forEach((minute, _k, _i, _s, _o, n) => minutes.push(minute, n));
    expect(minutes).toEqual([Math.floor(recent / 60_000), 1]);
  });

  it('counts no minute without a minute retention', () => {
    const { counters } = classifyBatch(batchOf([message(0, 'a')]), null, ctx, () => known(null));
    expect(counters.get('a')!.minuteTuples()).toBeUndefined();
  });
});
