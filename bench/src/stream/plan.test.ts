import { describe, expect, it } from 'vitest';
import { liveTraffic, planStreams, rootKeysFor, scopeOf } from './plan';

describe('planStreams', () => {
  it('spreads the streams over every API with the day/hour/identity mix and within each key cap', () => {
    const keys = rootKeysFor(1_000, 100);
    const plan = planStreams(1_000, 50, keys);
    expect(new Set(plan.map((s) => s.apiId)).size).toBe(50);
    const kinds = plan.reduce<Record<string, number>>(
      (m, s) => ({ ...m, [s.kind]: (m[s.kind] ?? 0) + 1 }),
      {},
    );
    expect(kinds).toEqual({ day: 400, hour: 400, identity: 200 });
    const perKey = new Map<number, number>();
    for (const s of plan) perKey.set(s.rootKey, (perKey.get(s.rootKey) ?? 0) + 1);
    expect(Math.max(...perKey.values())).toBeLessThanOrEqual(50);
    const identity = plan.filter((s) => s.kind === 'identity');
    expect(new Set(identity.map((s) => s.externalId))).toEqual(new Set(['e0', 'e1']));
    expect(identity.every((s) => s.scope === scopeOf(s.apiId, s.externalId))).toBe(true);
  });
});

describe('liveTraffic', () => {
  it('is seeded and reaches the watched identities of the busiest API', () => {
    const a = liveTraffic(3, 50, () => 7);
    const b = liveTraffic(3, 50, () => 7);
    const events = Array.from({ length: 2_000 }, a);
    expect(Array.from({ length: 2_000 }, b)).toEqual(events);
    expect(events.every((e) => e.time === 7 && e.workspaceId === 'ws_live')).toBe(true);
    expect(events.some((e) => e.apiId === 'live_0' && e.identity?.externalId === 'e0')).toBe(true);
    expect(new Set(events.map((e) => e.apiId)).size).toBe(50);
  });
});
