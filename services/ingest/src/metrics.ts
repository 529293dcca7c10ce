/** Prometheus metrics of the ingest worker (prom-client, registered on the service's registry). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { DLQ_REASONS } from './reasons';

export interface IngestMetrics {
  applied: Counter;
  deadLettered: Counter<'reason'>;
  skipped: Counter;
  batchApplySeconds: Histogram;
  lag: Gauge<'topic' | 'partition'>;
  resyncs: Counter<'cause'>;
}

export function createIngestMetrics(registry: Registry): IngestMetrics {
  const registers = [registry];
  const deadLettered = new Counter({
    name: 'va_ingest_events_dead_lettered_total',
    help: 'Events sent to the dead-letter topic, by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  // Every reason shows up as 0 from the start, so rates and alerts need no special case.
  for (const reason of DLQ_REASONS) deadLettered.inc({ reason }, 0);
  return {
    applied: new Counter({
      name: 'va_ingest_events_applied_total',
      help: 'Events counted into Redis (each exactly once)',
      registers,
    }),
    deadLettered,
    skipped: new Counter({
      name: 'va_ingest_events_skipped_total',
      help: 'Redelivered events skipped because Redis already holds them (replay after a crash or rebalance)',
      registers,
    }),
    batchApplySeconds: new Histogram({
      name: 'va_ingest_batch_apply_seconds',
      help: 'Time to decode, dead-letter and apply one partition batch',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    lag: new Gauge({
      name: 'va_ingest_consumer_lag',
      help: 'Messages behind the partition end after the last applied batch (high watermark - 1 - last offset)',
      labelNames: ['topic', 'partition'] as const,
      registers,
    }),
    resyncs: new Counter({
      name: 'va_ingest_resyncs_total',
      help: 'Partitions re-read from Redis progress and sought, by cause',
      labelNames: ['cause'] as const,
      registers,
    }),
  };
}
