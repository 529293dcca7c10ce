/** Prometheus metrics of the compactor (prom-client, registered on the service's registry). */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface CompactorMetrics {
  hoursCompacted: Counter;
  /** Closed hours holding data not yet compacted, per API, after its last job. */
  lagHours: Gauge<'api'>;
  jobs: Counter<'name' | 'result'>;
}

export function createCompactorMetrics(registry: Registry): CompactorMetrics {
  return {
    hoursCompacted: new Counter({
      name: 'va_compactor_hours_compacted_total',
      help: 'Hours merged into their day and month rollups.',
      registers: [registry],
    }),
    lagHours: new Gauge({
      name: 'va_compactor_lag_hours',
      help: 'Hours between the last compacted hour and the closed bound, per API, after its last job.',
      labelNames: ['api'],
      registers: [registry],
    }),
    jobs: new Counter({
      name: 'va_compactor_jobs_total',
      help: 'Compactor jobs finished, by job name and result.',
      labelNames: ['name', 'result'],
      registers: [registry],
    }),
  };
}
