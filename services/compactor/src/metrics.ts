/** Prometheus metrics of the compactor (prom-client, registered on the service's registry). */
import { Counter, Histogram, type Registry } from 'prom-client';

export interface CompactorMetrics {
  hoursCompacted: Counter;
  /**
   * Hours between an API's compaction point and the closed bound after each job. A histogram
   * without an API label: a label per API would keep one series per API ever compacted.
   */
  lagHours: Histogram;
  jobs: Counter<'name' | 'result'>;
  /** Sealing (docs/store-v2.md): buckets sealed, section bytes written, delta hashes folded in. */
  bucketsSealed: Counter;
  sectionBytesWritten: Counter;
  hashesSealed: Counter;
}

/** Records an API's lag after a job (hours behind the closed bound; negative counts as 0). */
export function recordLag(metrics: CompactorMetrics, behindHours: number): void {
  metrics.lagHours.observe(Math.max(0, behindHours));
}

export function createCompactorMetrics(registry: Registry): CompactorMetrics {
  return {
    hoursCompacted: new Counter({
      name: 'va_compactor_hours_compacted_total',
      help: 'Hours merged into their day and month rollups.',
      registers: [registry],
    }),
    lagHours: new Histogram({
      name: 'va_compactor_lag_hours',
      help: 'Hours between the last compacted hour and the closed bound of an API after each compaction job.',
      buckets: [0, 1, 2, 6, 24, 168, 840],
      registers: [registry],
    }),
    jobs: new Counter({
      name: 'va_compactor_jobs_total',
      help: 'Compactor jobs finished, by job name and result.',
      labelNames: ['name', 'result'],
      registers: [registry],
    }),
    bucketsSealed: new Counter({
      name: 'va_compactor_buckets_sealed_total',
      help: 'Buckets whose delta hashes were folded into their sealed sections.',
      registers: [registry],
    }),
    sectionBytesWritten: new Counter({
      name: 'va_compactor_section_bytes_written_total',
      help: 'Bytes of sealed sections written.',
      registers: [registry],
    }),
    hashesSealed: new Counter({
      name: 'va_compactor_hashes_sealed_total',
      help: 'Delta hashes folded into sealed sections (and deleted).',
      registers: [registry],
    }),
  };
}
