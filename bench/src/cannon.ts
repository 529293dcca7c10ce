/**
 * One autocannon run, the way every bench load is taken: latencies from autocannon's per-response event
 * (float ms; its histogram has 1 ms resolution), any answer but 200 counted as a failure by kind, and
 * the bearer token rotating over a pool of root keys request by request (query-env.ts rootKeyPoolSize).
 */
import autocannon from 'autocannon';
import { summarize, type Summary } from './stats';

export interface CannonRun {
  connections: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  /** Non-200 answers, errors and timeouts. */
  failures: number;
  /** What the failures were: "HTTP <status>", "error", "timeout" -> count. */
  failureKinds: Record<string, number>;
  /** Of the 200 answers only. */
  latencyMs: Summary;
}

export interface CannonInput {
  url: string;
  connections: number;
  seconds: number;
  /** Root keys to send as `Authorization: Bearer`, one after the other; none: no header. */
  bearer?: readonly string[];
}

/** Cycles through `items`, starting with the first. */
export function rotation<T>(items: readonly T[]): () => T {
  if (items.length === 0) throw new Error('rotation of nothing');
  let next = 0;
  return () => {
    const item = items[next]!;
    next = (next + 1) % items.length;
    return item;
  };
}

/** Starts a run; `stop` ends it early (the run's promise then resolves with what it measured). */
export function startCannon(input: CannonInput): { stop(): void; done: Promise<CannonRun> } {
  const latencies: number[] = [];
  const failureKinds: Record<string, number> = {};
  const nextKey = input.bearer?.length ? rotation(input.bearer) : undefined;
  const instance = autocannon({
    url: input.url,
    connections: input.connections,
    duration: input.seconds,
    timeout: 30,
    ...(nextKey && {
      requests: [
        {
          setupRequest: (request) => {
            request.headers.authorization = `Bearer ${nextKey()}`;
            return request;
          },
        },
      ],
    }),
  });
  instance.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode === 200) latencies.push(ms);
    else failureKinds[`HTTP ${statusCode}`] = (failureKinds[`HTTP ${statusCode}`] ?? 0) + 1;
  });
  const done = Promise.resolve(instance).then((result): CannonRun => {
    if (result.errors > result.timeouts) failureKinds.error = result.errors - result.timeouts;
    if (result.timeouts > 0) failureKinds.timeout = result.timeouts;
    const requests = result.requests.total;
    return {
      connections: input.connections,
      seconds: result.duration,
      requests,
      requestsPerSecond: requests / Math.max(result.duration, 0.001),
      failures: result.non2xx + result.errors, // autocannon counts timeouts among the errors
      failureKinds,
      latencyMs: summarize(latencies),
    };
  });
  return { stop: () => instance.stop(), done };
}

export const cannon = (input: CannonInput): Promise<CannonRun> => startCannon(input).done;

/** "HTTP 429 x3, timeout x1". */
export const failureText = (kinds: Record<string, number>): string =>
  Object.entries(kinds)
    .map(([kind, n]) => `${kind} x${n}`)
    .join(', ');
