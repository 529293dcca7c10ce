/**
 * When a stream query reads (query-group.ts), on a fake clock: the number and the moments of its reads
 * under change signals. No real time is measured: speed is the bench's (npm run bench -- --stream).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MIN_INTERVAL_MS, QueryGroup, type Answer, type GroupDeps, type Member } from './query-group';
import type { StreamAnswerBytes } from './read';
import type { StreamMetrics } from './metrics';
import { streamQuery } from './stream-query';

const REFRESH_MS = 10_000;
const query = streamQuery(
  {
    apiId: 'api_a',
    startHour: 0,
    endHour: 10,
    groupBy: { key: false, identity: false, tag: false, tags: false },
  },
  false,
);
const counter = { inc: () => {} };
const metrics = { reads: counter, events: counter, signals: counter } as unknown as StreamMetrics;

/** A group whose reads are noted (their start time) and take `readMs` of the fake clock each. */
function setup(readMs = 0) {
  const reads: number[] = [];
  const deps: GroupDeps = {
    read: async (): Promise<StreamAnswerBytes> => {
      reads.push(Date.now());
      if (readMs > 0) await new Promise((resolve) => setTimeout(resolve, readMs));
      const id = `answer-${reads.length}`;
      return { id, data: Buffer.from(`{"n":${reads.length}}`) };
    },
    now: () => Date.now(),
    minIntervalMs: MIN_INTERVAL_MS,
    refreshMs: REFRESH_MS,
    isFinal: (_error): _error is never => false,
    onTransient: () => {},
    onIdle: () => {},
    metrics,
  };
  const sent: Answer[] = [];
  const member: Member = {
    authKey: 'k',
    recheck: async () => null,
    send: (answer) => sent.push(answer),
    end: () => {},
  };
  return { reads, sent, member, group: new QueryGroup(query, deps) };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

async function opened(readMs = 0) {
  const s = setup(readMs);
  const t0 = Date.now();
  const entered = s.group.enter();
  await vi.advanceTimersByTimeAsync(readMs); // the first read
  await entered;
  s.group.attach(s.member, undefined);
  return { ...s, t0 };
}

describe('a stream query under change signals', () => {
  it('reads a change signalled at any moment of continuous traffic within half a second', async () => {
    const { group, reads, sent, t0 } = await opened(20);
    const signals: number[] = [];
    await vi.advanceTimersByTimeAsync(30);
    // A signal every 50 ms for 3 s: every batch of a busy API changes the answer.
    for (let t = 50; t <= 3_000; t += 50) {
      await vi.advanceTimersByTimeAsync(50);
      signals.push(Date.now());
      group.changed();
    }
    await vi.advanceTimersByTimeAsync(1_000);
    // A change committed just before its signal is in the first read that starts at or after the signal.
    const waits = signals.map((at) => reads.find((r) => r >= at)! - at);
    expect(Math.max(...waits)).toBeLessThanOrEqual(500); // at one read a second: up to 1,000 ms
    // And no more than one read per interval: signals from 100 to 3,050 ms after the first read.
    expect(reads.map((r) => r - t0)).toEqual([0, 500, 1000, 1500, 2000, 2500, 3000, 3500]);
    expect(sent.length).toBe(reads.length);
  });

  it('reads at the signal when the previous read began an interval ago or longer', async () => {
    const { group, reads, t0 } = await opened();
    await vi.advanceTimersByTimeAsync(2_000);
    group.changed();
    await vi.advanceTimersByTimeAsync(0);
    expect(reads.map((r) => r - t0)).toEqual([0, 2_000]);
  });

  it('makes one more read after a read that signals came during, an interval after its start', async () => {
    const { group, reads, t0 } = await opened(300);
    await vi.advanceTimersByTimeAsync(2_000 - 300);
    group.changed(); // a read starts at 2,000 and lasts 300 ms
    await vi.advanceTimersByTimeAsync(100);
    group.changed();
    group.changed();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reads.map((r) => r - t0)).toEqual([0, 2_000, 2_000 + MIN_INTERVAL_MS]);
  });

  it('reads every refresh interval without a signal', async () => {
    const { reads, t0 } = await opened();
    await vi.advanceTimersByTimeAsync(REFRESH_MS * 2);
    expect(reads.map((r) => r - t0)).toEqual([0, REFRESH_MS, REFRESH_MS * 2]);
  });
});
