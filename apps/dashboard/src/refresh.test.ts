import { describe, expect, it } from 'vitest';
import { LIVE_INTERVAL_SECONDS, RefreshLoop, type RefreshStatus, type Ticker } from './refresh';

/** A ticker the test advances by hand. */
function manualTicker(): Ticker & { tick(): void } {
  let fn: (() => void) | undefined;
  return {
    every: (_ms, f) => {
      fn = f;
      return () => (fn = undefined);
    },
    tick: () => fn?.(),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('RefreshLoop', () => {
  it('refreshes at start, counts down, refreshes at zero; pause stops the countdown', async () => {
    const ticker = manualTicker();
    let runs = 0;
    let last: RefreshStatus | undefined;
    const loop = new RefreshLoop(
      async () => void runs++,
      (s) => (last = s),
      3,
      ticker,
    );
    loop.start();
    await settle();
    expect(runs).toBe(1);
    expect(last).toMatchObject({ remainingSeconds: 3, running: false });
    ticker.tick();
    ticker.tick();
    expect(last?.remainingSeconds).toBe(1);
    loop.setPaused(true);
    ticker.tick();
    ticker.tick();
    await settle();
    expect(runs).toBe(1);
    expect(last).toMatchObject({ paused: true, remainingSeconds: 1 });
    loop.setPaused(false);
    ticker.tick();
    await settle();
    expect(runs).toBe(2);
    expect(last?.remainingSeconds).toBe(3);
  });

  it('runs once more when asked during a refresh, never two at once', async () => {
    let release: () => void = () => undefined;
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const loop = new RefreshLoop(
      () => {
        runs++;
        maxRunning = Math.max(maxRunning, ++running);
        return new Promise<void>((resolve) => (release = () => (running--, resolve())));
      },
      () => undefined,
      60,
      manualTicker(),
    );
    const first = loop.now();
    void loop.now();
    void loop.now();
    release();
    await settle();
    release();
    await first;
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('live: counts down the slow interval only, and polls at the chosen one again when the stream is gone', async () => {
    const ticker = manualTicker();
    let runs = 0;
    let last: RefreshStatus | undefined;
    const loop = new RefreshLoop(
      async () => void runs++,
      (s) => (last = s),
      5,
      ticker,
    );
    loop.start();
    await settle();
    loop.setLive(true);
    expect(last).toMatchObject({ live: true, remainingSeconds: LIVE_INTERVAL_SECONDS });
    for (let i = 0; i < 10; i++) ticker.tick();
    await settle();
    expect(runs).toBe(1); // a 5 s poll would have run twice
    await loop.now(); // the stream said the data changed
    expect(runs).toBe(2);
    expect(last?.remainingSeconds).toBe(LIVE_INTERVAL_SECONDS);
    loop.setLive(false);
    expect(last).toMatchObject({ live: false, remainingSeconds: 5 });
    for (let i = 0; i < 5; i++) ticker.tick();
    await settle();
    expect(runs).toBe(3);
  });
});
