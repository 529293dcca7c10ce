// The part of autocannon's API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Requests in total (instead of duration). */
    amount?: number;
    headers?: Record<string, string>;
    /** Seconds per request before it counts as a timeout. */
    timeout?: number;
    /** Requests each connection sends in turn; setupRequest may change each one before it is sent. */
    requests?: { setupRequest?: (request: RequestData) => RequestData }[];
  }

  export interface RequestData {
    method: string;
    path: string;
    /** A copy per request: setupRequest may change it in place. */
    headers: Record<string, string>;
  }

  export interface Stats {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    duration: number;
    requests: Stats;
    latency: Stats;
    throughput: Stats;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }

  /** An EventEmitter that is also a promise of the result ('response' gives each request's latency). */
  export interface Instance extends EventEmitter, PromiseLike<Result> {
    /** Ends the run early: the promise resolves with what was measured so far. */
    stop(): void;
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
    ): this;
  }

  export default function autocannon(options: Options): Instance;
}
