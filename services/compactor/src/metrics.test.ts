// Issue #17.6: the compactor's metrics must not grow a series per API (one per API ever
// compacted, kept until the process restarts). The lag is a histogram without an API label.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createCompactorMetrics, recordLag } from './metrics';

describe('compactor metrics', () => {
  it('keep a bounded number of series however many APIs are compacted', async () => {
    const registry = new Registry();
    const metrics = createCompactorMetrics(registry);
    for (let a = 0; a < 1000; a++) recordLag(metrics, a % 50);
    const text = await registry.metrics();
    expect(text).not.toMatch(/api="/);
    const series = text.split('\n').filter((line) => line.startsWith('va_compactor_lag_hours'));
    expect(series.length).toBeLessThan(30);
    expect(text).toMatch(/va_compactor_lag_hours_count 1000/);
  });
});
