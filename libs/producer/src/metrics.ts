/**
 * The producer's prom-client metrics, on the registry the caller passes (default: prom-client's
 * global one). Several producers in one process share the metrics (label `topic` tells topics
 * apart): a metric already registered under the name is reused rather than registered twice.
 */
import { Counter, Gauge, Histogram, register as defaultRegistry, type Registry } from 'prom-client';

export interface ProducerMetrics {
  sent: Counter<'topic'>;
  failed: Counter<'topic'>;
  bufferedEvents: Gauge;
  bufferedBytes: Gauge;
  batchSeconds: Histogram;
  batchEvents: Histogram;
}

function metric<M>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}

export function producerMetrics(
  registry: Registry = defaultRegistry,
  prefix = 'va_producer_',
): ProducerMetrics {
  const registers = [registry];
  return {
    sent: metric(
      registry,
      `${prefix}events_sent_total`,
      () =>
        new Counter({
          name: `${prefix}events_sent_total`,
          help: 'Events acknowledged by Kafka (acks=all)',
          labelNames: ['topic'],
          registers,
        }),
    ),
    failed: metric(
      registry,
      `${prefix}events_failed_total`,
      () =>
        new Counter({
          name: `${prefix}events_failed_total`,
          help: 'Events given up on: their batch failed for good (or they were buffered behind it)',
          labelNames: ['topic'],
          registers,
        }),
    ),
    bufferedEvents: metric(
      registry,
      `${prefix}buffered_events`,
      () =>
        new Gauge({
          name: `${prefix}buffered_events`,
          help: 'Events accepted by send() and not yet acknowledged (queued and in flight)',
          registers,
        }),
    ),
    bufferedBytes: metric(
      registry,
      `${prefix}buffered_bytes`,
      () =>
        new Gauge({
          name: `${prefix}buffered_bytes`,
          help: 'Bytes (key + value) of the buffered events',
          registers,
        }),
    ),
    batchSeconds: metric(
      registry,
      `${prefix}batch_duration_seconds`,
      () =>
        new Histogram({
          name: `${prefix}batch_duration_seconds`,
          help: 'Time from sending a batch to its acknowledgement, retries included',
          buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          registers,
        }),
    ),
    batchEvents: metric(
      registry,
      `${prefix}batch_events`,
      () =>
        new Histogram({
          name: `${prefix}batch_events`,
          help: 'Events per batch sent',
          buckets: [1, 10, 100, 500, 1000, 2000, 5000, 10000],
          registers,
        }),
    ),
  };
}
