/** Prometheus metrics of the query route (served on the internal port: main.ts, QUERY_METRICS_PORT). */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { App } from './app';
import { LOOP_DELAY_RESOLUTION_MS, loopDelayWindow } from './loop-delay';

/** Why a request was turned away before or while it was answered. */
export type Refusal =
  'row_cap' | 'too_expensive' | 'timeout' | 'rate_limited' | 'concurrency' | 'client_closed';

/** What the route reports besides status and duration. */
export interface QueryMetrics {
  refused(reason: Refusal): void;
  /** Requests being answered (after the checks and limits) in this service. */
  inFlight: Gauge;
  /** Time from arrival until the read starts (checks, rate limit, slot). */
  waited(seconds: number): void;
  /** Which thread built an answer (verifications/read-pool.ts weighQuery). */
  answered(thread: AnsweredOn): void;
}

/** main: a light query; worker: a heavy one; worker_after_main: tried here, its rows were a worker's. */
export type AnsweredOn = 'main' | 'worker' | 'worker_after_main';

export function registerMetrics(app: App, registry: Registry, route: string): QueryMetrics {
  const requests = new Counter({
    name: 'va_query_requests_total',
    help: 'Requests of GET /v1/analytics.getVerifications by HTTP status',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'va_query_duration_seconds',
    help: 'Time to answer GET /v1/analytics.getVerifications',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const refused = new Counter({
    name: 'va_query_refused_total',
    help:
      'Requests turned away: row_cap (over the row cap), too_expensive (estimated work over QUERY_MAX_COST), ' +
      'timeout (time budget), rate_limited, concurrency, ' +
      'client_closed (the client hung up; the work was stopped)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of [
    'row_cap',
    'too_expensive',
    'timeout',
    'rate_limited',
    'concurrency',
    'client_closed',
  ] as const)
    refused.inc({ reason }, 0);
  const answered = new Counter({
    name: 'va_query_answered_total',
    help:
      'Answers by the thread that built them: main (light queries), worker (heavy ones, in the read pool), ' +
      'worker_after_main (filtered by identity, tried on the main thread, handed to the pool when its rows were many)',
    labelNames: ['thread'] as const,
    registers: [registry],
  });
  for (const thread of ['main', 'worker', 'worker_after_main'] as const) answered.inc({ thread }, 0);
  const inFlight = new Gauge({
    name: 'va_query_in_flight',
    help: 'Query requests being read and answered by this service',
    registers: [registry],
  });
  const wait = new Histogram({
    name: 'va_query_wait_seconds',
    help: 'Time from arrival until the read starts (auth, checks, rate limit, concurrency slot)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [registry],
  });
  // The event loop's delay as this service sees it (nodejs_eventloop_lag_* of the default
  // metrics averages it away): its 99th percentile and its maximum over one window, from one
  // scrape to the next (loop-delay.ts).
  const loop = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  loop.enable();
  const window = loopDelayWindow(loop);
  new Gauge({
    name: 'va_query_event_loop_delay_max_seconds',
    help: 'Longest event-loop delay since the previous scrape',
    registers: [registry],
    collect() {
      this.set(window.read('max') / 1e9);
    },
  });
  new Gauge({
    name: 'va_query_event_loop_delay_p99_seconds',
    help: '99th percentile of the event-loop delay since the previous scrape',
    registers: [registry],
    collect() {
      this.set(window.read('p99') / 1e9);
    },
  });
  app.addHook('onClose', async () => loop.disable());

  // `done` rather than async: no promise and no microtask per request.
  app.addHook('onResponse', (request, reply, done) => {
    if (request.routeOptions.url === route) {
      requests.inc({ status: String(reply.statusCode) });
      duration.observe(reply.elapsedTime / 1000);
    }
    done();
  });

  return {
    refused: (reason) => refused.inc({ reason }),
    inFlight,
    waited: (seconds) => wait.observe(seconds),
    answered: (thread) => answered.inc({ thread }),
  };
}

/** The read pool's waiting line (heavy queries wait there for a free worker thread). */
export function registerPoolMetrics(registry: Registry, waiting: () => number): void {
  new Gauge({
    name: 'va_query_pool_waiting',
    help: 'Heavy queries waiting for a free read worker (they start in arrival order)',
    registers: [registry],
    collect() {
      this.set(waiting());
    },
  });
}
