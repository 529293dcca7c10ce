import { createHistogram } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { loopDelayWindow } from './loop-delay';

const MS = 1e6;

describe('loopDelayWindow (#39 item 9: p99 and max of the event-loop delay per scrape)', () => {
  it('gives p99 and max of the same window in either order, then starts a new one', () => {
    const histogram = createHistogram();
    const window = loopDelayWindow(histogram);
    for (let i = 0; i < 990; i++) histogram.record(2 * MS);
    for (let i = 0; i < 10; i++) histogram.record(15 * MS);
    histogram.record(40 * MS);
    // One scrape: max first, then p99 (the order prom-client's registry happens to use).
    expect(window.read('max') / MS).toBeCloseTo(40, 0);
    expect(window.read('p99') / MS).toBeCloseTo(15, 0);

    // The next window holds only what was recorded since; the other order.
    for (let i = 0; i < 100; i++) histogram.record(3 * MS);
    expect(window.read('p99') / MS).toBeCloseTo(3, 0);
    expect(window.read('max') / MS).toBeCloseTo(3, 0);

    // Nothing recorded: no delay seen.
    expect(window.read('max')).toBe(0);
    expect(window.read('p99')).toBe(0);
  });
});
