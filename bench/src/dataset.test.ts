import { describe, expect, it } from 'vitest';
import type { Message } from 'kafkajs';
import type { VerificationEvent } from '@va/contracts';
import {
  BACKGROUND_APIS,
  dataSetApis,
  dataSetMessages,
  MEDIUM_API,
  MEDIUM_WORKSPACE,
  totalEvents,
} from './dataset';

const events = (messages: Iterable<Message>) =>
  [...messages].map((m) => JSON.parse(m.value as string) as VerificationEvent);

describe('dataSetMessages', () => {
  const spec = { seed: 3, events: 2000, days: 2, anchorMs: Date.UTC(2026, 0, 10) };

  it('gives the medium tenant its events plus a tenth as background, the same for the same spec', () => {
    const first = events(dataSetMessages(spec));
    expect(first).toHaveLength(totalEvents(spec));
    expect(first.filter((e) => e.apiId === MEDIUM_API)).toHaveLength(2000);
    expect(first.filter((e) => e.apiId.startsWith('bg_'))).toHaveLength(200);
    expect(events(dataSetMessages(spec))).toEqual(first);
  });

  it('keeps times inside the span and mixes the background in evenly', () => {
    const all = events(dataSetMessages(spec));
    expect(all.every((e) => e.time >= spec.anchorMs - 2 * 86_400_000 && e.time < spec.anchorMs)).toBe(true);
    const firstTenth = all.slice(0, 220).filter((e) => e.apiId.startsWith('bg_')).length;
    expect(firstTenth).toBeGreaterThanOrEqual(19);
    expect(firstTenth).toBeLessThanOrEqual(21);
  });

  it('in time order: the same events with nondecreasing times per population, spread over the whole span', () => {
    const random = events(dataSetMessages(spec));
    const ordered = events(dataSetMessages({ ...spec, order: 'time' }));
    const withoutTime = (e: VerificationEvent) => ({ ...e, time: 0 });
    expect(ordered.map(withoutTime)).toEqual(random.map(withoutTime));
    for (const population of [
      (e: VerificationEvent) => e.apiId === MEDIUM_API,
      (e: VerificationEvent) => e.apiId !== MEDIUM_API,
    ]) {
      const times = ordered.filter(population).map((e) => e.time);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(times[0]!).toBeLessThan(spec.anchorMs - 1.9 * 86_400_000);
      expect(times[times.length - 1]!).toBeGreaterThan(spec.anchorMs - 0.1 * 86_400_000);
      expect(times.every((t) => t >= spec.anchorMs - 2 * 86_400_000 && t < spec.anchorMs)).toBe(true);
    }
  });
});

describe('dataSetApis', () => {
  it("lists every API the events use, each with the workspace its events name, the medium tenant's first", () => {
    const apis = dataSetApis();
    expect(apis).toHaveLength(1 + BACKGROUND_APIS);
    expect(apis[0]).toEqual({ apiId: MEDIUM_API, workspaceId: MEDIUM_WORKSPACE });
    const workspaceOf = new Map(apis.map((a) => [a.apiId, a.workspaceId]));
    const all = events(
      dataSetMessages({ seed: 3, events: 20_000, days: 1, anchorMs: Date.UTC(2026, 0, 10) }),
    );
    expect(all.every((e) => workspaceOf.get(e.apiId) === e.workspaceId)).toBe(true);
  });
});
