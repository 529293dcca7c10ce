import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { VerificationEvent } from '@va/contracts';
import { TAG_VOCABULARY } from './generator';
import { createTailGenerator, tailKeysOf, tailShare, tailWorkspaceId } from './tail';

const check = TypeCompiler.Compile(VerificationEvent);
const START = 1_750_000_000_000;
const SPAN = 30 * 86_400_000;
const options = { seed: 7, events: 60_000, startMs: START, spanMs: SPAN };

describe('createTailGenerator', () => {
  it('is deterministic per seed', () => {
    const take = (seed: number) => {
      const g = createTailGenerator({ ...options, seed });
      return Array.from({ length: 200 }, () => g.next());
    };
    expect(take(7)).toEqual(take(7));
    expect(take(8)).not.toEqual(take(7));
  });

  it('has the shape of the issue: a Zipf tail of APIs, keys per API, identities, tags, regions, time order', () => {
    const g = createTailGenerator(options);
    const violations: string[] = [];
    const perApi = new Map<string, number>();
    const keysOf = new Map<string, Set<string>>();
    const identityOfKey = new Map<string, string>();
    let withRegion = 0;
    let lastTime = -Infinity;
    for (let n = 0; n < options.events; n++) {
      const e = g.next();
      if (!check.Check(e)) violations.push(`invalid ${JSON.stringify(e)}`);
      if (e.time < lastTime) violations.push(`time went back at ${n}`);
      lastTime = e.time;
      if (e.time < START || e.time >= START + SPAN) violations.push(`time ${e.time} outside the span`);
      const a = Number(e.apiId.slice('tail_'.length));
      if (e.workspaceId !== tailWorkspaceId(a)) violations.push(`${e.apiId} in ${e.workspaceId}`);
      perApi.set(e.apiId, (perApi.get(e.apiId) ?? 0) + 1);
      const keys = keysOf.get(e.apiId) ?? new Set();
      keys.add(e.keyId);
      keysOf.set(e.apiId, keys);
      if (keys.size > tailKeysOf(a)) violations.push(`${e.apiId} has more than ${tailKeysOf(a)} keys`);
      const identity = e.identity ? `${e.identity.id}/${e.identity.externalId}` : '';
      if ((identityOfKey.get(e.keyId) ?? identity) !== identity)
        violations.push(`${e.keyId} changed identity`);
      identityOfKey.set(e.keyId, identity);
      if ((e.tags ?? []).length > 3) violations.push(`${e.tags?.length} tags`);
      for (const tag of e.tags ?? []) if (!TAG_VOCABULARY.includes(tag)) violations.push(`tag ${tag}`);
      if (e.region) withRegion++;
    }
    expect(violations.slice(0, 5)).toEqual([]);
    // The busiest API takes about its Zipf share; most APIs are small.
    const busiest = perApi.get('tail_0')!;
    expect(busiest / options.events).toBeGreaterThan(tailShare(0) * 0.9);
    expect(busiest / options.events).toBeLessThan(tailShare(0) * 1.1);
    expect(perApi.size).toBeGreaterThan(3_000);
    const withIdentity = [...identityOfKey.values()].filter((v) => v !== '').length / identityOfKey.size;
    expect(withIdentity).toBeGreaterThan(0.55);
    expect(withIdentity).toBeLessThan(0.78);
    expect(withRegion / options.events).toBeGreaterThan(0.77);
    expect(withRegion / options.events).toBeLessThan(0.83);
  });

  it('gives every API between 5 and 200 keys', () => {
    const counts = Array.from({ length: 5_000 }, (_, a) => tailKeysOf(a));
    expect(Math.min(...counts)).toBe(5);
    expect(Math.max(...counts)).toBe(200);
  });

  it('puts the median API near 87 events of 3M, as the issue measured', () => {
    expect(Math.round(tailShare(2_499) * 3_000_000)).toBeGreaterThan(80);
    expect(Math.round(tailShare(2_499) * 3_000_000)).toBeLessThan(95);
    expect(Math.round(tailShare(0) * 3_000_000)).toBeGreaterThan(450_000);
  });
});
