import { describe, expect, it } from 'vitest';
import { parseMetrics } from './prometheus';

describe('parseMetrics', () => {
  it('sums a metric over its labels and skips comments', () => {
    const text = [
      '# HELP va_x help',
      '# TYPE va_x counter',
      'va_x{reason="a",service="ingest"} 2',
      'va_x{reason="b",service="ingest"} 3',
      'process_cpu_seconds_total{service="ingest"} 1.5',
      'va_h_bucket{le="+Inf"} 4',
    ].join('\n');
    const samples = parseMetrics(text);
    expect(samples.get('va_x')).toBe(5);
    expect(samples.get('process_cpu_seconds_total')).toBe(1.5);
    expect(samples.get('va_h_bucket')).toBe(4);
  });
});
