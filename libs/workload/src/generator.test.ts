import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { OUTCOMES, VerificationEvent } from '@va/contracts';
import { createGenerator, seededRandom, TAG_VOCABULARY, zipfSampler } from './generator';

const check = TypeCompiler.Compile(VerificationEvent);
const options = {
  seed: 42,
  apis: 10,
  keys: 500,
  identities: 80,
  startMs: 1_750_000_000_000,
  spanMs: 3_600_000,
};

describe('createGenerator', () => {
  it('is deterministic per seed', () => {
    const a = createGenerator(options);
    const b = createGenerator(options);
    const c = createGenerator({ ...options, seed: 43 });
    const first = Array.from({ length: 50 }, () => a.next());
    expect(Array.from({ length: 50 }, () => b.next())).toEqual(first);
    expect(Array.from({ length: 50 }, () => c.next())).not.toEqual(first);
  });

  it('produces valid, realistic events', () => {
    const g = createGenerator(options);
    const events = Array.from({ length: 20_000 }, () => g.next());
    // Violations are collected and asserted once: 20k events x 10 expect() calls is slow under load.
    const violations: string[] = [];
    const perApi = new Map<string, number>();
    const identityOfKey = new Map<string, string>();
    const outcomes = new Map<string, number>();
    for (const e of events) {
      if (!check.Check(e)) violations.push(`invalid event ${JSON.stringify(e)}`);
      perApi.set(e.apiId, (perApi.get(e.apiId) ?? 0) + 1);
      outcomes.set(e.outcome, (outcomes.get(e.outcome) ?? 0) + 1);
      const identity = e.identity ? `${e.identity.id}/${e.identity.externalId}` : '';
      // a key belongs to one identity (or none), always the same
      if ((identityOfKey.get(e.keyId) ?? identity) !== identity)
        violations.push(`${e.keyId} changed identity`);
      identityOfKey.set(e.keyId, identity);
      if (e.time < options.startMs || e.time >= options.startMs + options.spanMs)
        violations.push(`time ${e.time} outside the span`);
      if ((e.tags ?? []).length > 3) violations.push(`${e.tags?.length} tags`);
      for (const tag of e.tags ?? []) if (!TAG_VOCABULARY.includes(tag)) violations.push(`tag ${tag}`);
      // the workspace of an API never changes
      if (e.workspaceId !== g.workspaceOf(Number(e.apiId.slice(4)))) violations.push(`${e.apiId} moved`);
    }
    expect(violations.slice(0, 5)).toEqual([]);
    const counts = [...perApi.values()].sort((x, y) => y - x);
    expect(counts[0]!).toBeGreaterThan(4 * counts[counts.length - 1]!); // a few heavy APIs
    for (const o of OUTCOMES) expect(outcomes.get(o) ?? 0).toBeGreaterThan(0);
    expect(outcomes.get('VALID')! / events.length).toBeGreaterThan(0.7);
    expect([...identityOfKey.values()].filter((v) => v === '').length).toBeGreaterThan(0);
  });

  it('follows a clock in live mode', () => {
    let now = 5_000_000;
    const g = createGenerator({ ...options, clock: () => now, jitterMs: 100 });
    const e = g.next();
    expect(e.time).toBeLessThanOrEqual(now);
    expect(e.time).toBeGreaterThan(now - 100);
    now += 1000;
    expect(g.next().time).toBeGreaterThan(now - 100);
  });
});

describe('zipfSampler', () => {
  it('favours small indices and covers the range', () => {
    const pick = zipfSampler(100);
    const random = seededRandom(1);
    const hits = new Array<number>(100).fill(0);
    for (let n = 0; n < 50_000; n++) hits[pick(random())]!++;
    expect(hits[0]!).toBeGreaterThan(hits[10]!);
    expect(hits[10]!).toBeGreaterThan(hits[90]!);
    expect(hits.every((h) => h > 0)).toBe(true);
  });
});
