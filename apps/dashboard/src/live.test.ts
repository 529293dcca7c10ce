import { describe, expect, it } from 'vitest';
import { LiveUpdates, type LiveMode, type StreamSource } from './live';

/** A stream the test feeds by hand; `fail` ends it with an error. */
function fakeSource() {
  const pending: ((v: IteratorResult<{ id: string; datapoints: { total: number }[] }>) => void)[] = [];
  let failure: ((e: unknown) => void) | undefined;
  const opened: string[] = [];
  const source: StreamSource = {
    streamVerifications(query, { signal }) {
      opened.push(query.apiId);
      return {
        [Symbol.asyncIterator]: () => ({
          next: () =>
            new Promise((resolve, reject) => {
              pending.push(resolve);
              failure = reject;
              signal.addEventListener('abort', () => reject(signal.reason));
            }),
        }),
      };
    },
  };
  return {
    source,
    opened,
    answer: (total: number) =>
      pending.shift()!({ done: false, value: { id: String(total), datapoints: [{ total }] } }),
    fail: (e: unknown) => failure!(e),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function live() {
  const log = { modes: [] as LiveMode[], answers: [] as [number, boolean][], errors: [] as unknown[] };
  const updates = new LiveUpdates({
    onAnswer: (total, first) => log.answers.push([total, first]),
    onMode: (mode) => log.modes.push(mode),
    onError: (error) => log.errors.push(error),
  });
  return { updates, log };
}

describe('LiveUpdates', () => {
  it('is live from the first answer and reports each answer', async () => {
    const { updates, log } = live();
    const s = fakeSource();
    updates.follow(s.source, { apiId: 'a' }, 'k');
    await settle();
    s.answer(5);
    await settle();
    s.answer(6);
    await settle();
    expect(log.modes).toEqual(['connecting', 'stream']);
    expect(log.answers).toEqual([
      [5, true],
      [6, false],
    ]);
  });

  it('falls back to polling when the service offers no stream', async () => {
    const { updates, log } = live();
    const s = fakeSource();
    updates.follow(s.source, { apiId: 'a' }, 'k');
    await settle();
    const notFound = Object.assign(new Error('no such endpoint'), { status: 404 });
    s.fail(notFound);
    await settle();
    expect(log.modes).toEqual(['connecting', 'polling']);
    expect(log.errors).toEqual([notFound]);
  });

  it('keeps the stream of the same key and opens a new one for another', async () => {
    const { updates } = live();
    const s = fakeSource();
    updates.follow(s.source, { apiId: 'a' }, 'k1');
    updates.follow(s.source, { apiId: 'a' }, 'k1');
    updates.follow(s.source, { apiId: 'b' }, 'k2');
    await settle();
    expect(s.opened).toEqual(['a', 'b']);
    updates.stop();
  });
});
