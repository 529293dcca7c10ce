/** Prometheus metrics of the live streams (GET /v1/analytics.stream; docs/api.md#stream). */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface StreamMetrics {
  /** Reads of stream queries, by outcome: changed (an event went out), same (no event), failed. */
  reads: Counter<'outcome'>;
  /** Answer events written to streams (one per stream and changed answer). */
  events: Counter;
  /** Change signals received (one per committed batch of an ingest worker). */
  signals: Counter;
  /** Streams refused before they started, by reason: process (QUERY_STREAM_MAX), key (QUERY_STREAM_MAX_PER_KEY). */
  refused: Counter<'reason'>;
}

export function registerStreamMetrics(
  registry: Registry,
  gauges: { open: () => number; queries: () => number },
): StreamMetrics {
  new Gauge({
    name: 'va_query_streams_open',
    help: 'Open live streams of this query service',
    registers: [registry],
    collect() {
      this.set(gauges.open());
    },
  });
  new Gauge({
    name: 'va_query_stream_queries',
    help: 'Distinct queries with open live streams (each read once per change, shared by its streams)',
    registers: [registry],
    collect() {
      this.set(gauges.queries());
    },
  });
  const reads = new Counter({
    name: 'va_query_stream_reads_total',
    help: 'Reads of stream queries: changed (the answer changed and was pushed), same (unchanged), failed',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['changed', 'same', 'failed']) reads.inc({ outcome }, 0);
  const refused = new Counter({
    name: 'va_query_stream_refused_total',
    help: 'Streams refused before they started: process (QUERY_STREAM_MAX), key (QUERY_STREAM_MAX_PER_KEY)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of ['process', 'key']) refused.inc({ reason }, 0);
  return {
    reads,
    events: new Counter({
      name: 'va_query_stream_events_total',
      help: 'Answer events written to live streams',
      registers: [registry],
    }),
    signals: new Counter({
      name: 'va_query_stream_signals_total',
      help: 'Change signals received from the ingest workers',
      registers: [registry],
    }),
    refused,
  };
}
