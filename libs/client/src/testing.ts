/**
 * Fakes for the client's unit tests (not exported by the package): a manual clock and a
 * scripted fetch that records what it was asked.
 */
import type { Clock } from './clock.js';
import type { FetchLike } from './client.js';

/**
 * Time stands still until advance(); sleeps resolve when it passes their end. With `auto`, every
 * sleep ends at once and moves time forward by its length (for tests without a deadline).
 */
export class FakeClock implements Clock {
  time = 1_000_000;
  readonly sleeps: number[] = [];
  private waiting: { at: number; resolve: () => void }[] = [];

  constructor(private readonly auto = false) {}

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.auto) {
      this.time += ms;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = { at: this.time + ms, resolve };
      this.waiting.push(entry);
      signal?.addEventListener('abort', () => {
        this.waiting = this.waiting.filter((w) => w !== entry);
        reject(signal.reason as Error);
      });
    });
  }

  advance(ms: number): void {
    this.time += ms;
    const due = this.waiting.filter((w) => w.at <= this.time);
    this.waiting = this.waiting.filter((w) => w.at > this.time);
    for (const w of due) w.resolve();
  }
}

export interface Sent {
  url: URL;
  init: RequestInit;
}

/** A fetch that answers with the scripted responses (or errors) in turn and records each request. */
export function scriptedFetch(script: (Response | Error | 'hang')[]): FetchLike & { sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch = async (url: URL, init: RequestInit): Promise<Response> => {
    sent.push({ url, init });
    const next = script.shift();
    if (next === undefined) throw new Error('scriptedFetch: no more answers');
    if (next === 'hang') {
      return new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error));
      });
    }
    if (next instanceof Error) throw next;
    return next;
  };
  return Object.assign(fetch, { sent });
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

export const envelope = (status: number, kind: string, requestId = 'req_x', errors: unknown[] = []) => ({
  meta: { requestId },
  error: { title: 'T', detail: `a ${kind}`, status, type: `https://docs.test/errors/${kind}`, errors },
});

/** Lets pending promise callbacks run. */
export const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
