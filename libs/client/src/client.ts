/**
 * The client: one instance per base URL and token. Uses only fetch, URL and AbortController, so the
 * same code runs in Node 20+ and browsers; `fetch` is injectable (tests, proxies, instrumented fetch).
 */
import { systemClock, type Clock } from './clock.js';
import { encodeQuery, endpointUrl } from './encode.js';
import { streamAnswers, type StreamAnswer, type StreamOptions } from './stream.js';
import { errorFromAnswer } from './error-mapping.js';
import { precisionOf, timeZoneOf } from './headers.js';
import { ApiError, NetworkError, TimeoutError } from './errors.js';
import {
  DEFAULT_RETRY,
  parseRetryAfter,
  retryDelay,
  type FailedAttempt,
  type RetryOptions,
} from './retry.js';
import type {
  AlertDeleted,
  AlertEndpointList,
  AlertRule,
  AlertRuleList,
  CreateAlertEndpointRequest,
  CreateAlertRuleRequest,
  CreatedAlertEndpoint,
  DeliveryList,
  ListDeliveriesParams,
  ApiList,
  CreateReadTokenRequest,
  Datapoint,
  GetVerificationsParams,
  ReadToken,
  VerificationsResult,
} from './types.js';

export type FetchLike = (input: URL, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Where the service listens, e.g. http://127.0.0.1:8080 (a path prefix is kept). */
  baseUrl: string | URL;
  /** A root key or a read token, sent as `Authorization: Bearer <token>`. A function is asked before each call. */
  token: string | (() => string | Promise<string>);
  /** Deadline of one call in ms, retries and their waits included. Default 10 000; 0 turns it off. */
  timeoutMs?: number;
  /** Retries of 429/503 and network failures; `false` turns them off. */
  retry?: Partial<RetryOptions> | false;
  /** Default: the global fetch. */
  fetch?: FetchLike;
  /** Extra headers on every request (e.g. a tracing header). */
  headers?: Record<string, string>;
  /** Tests: time and randomness of timeouts and backoff. */
  clock?: Clock;
  random?: () => number;
}

export interface CallOptions {
  /** Aborts the call; it then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const GET_VERIFICATIONS_PATH = '/v1/analytics.getVerifications';
export const CREATE_READ_TOKEN_PATH = '/v1/analytics.createReadToken';
export const LIST_APIS_PATH = '/v1/apis.list';
/** The /v1/alerts.* paths (docs/alerts.md), by method name. */
export const ALERTS_PATHS = {
  createRule: '/v1/alerts.createRule',
  listRules: '/v1/alerts.listRules',
  deleteRule: '/v1/alerts.deleteRule',
  createEndpoint: '/v1/alerts.createEndpoint',
  listEndpoints: '/v1/alerts.listEndpoints',
  deleteEndpoint: '/v1/alerts.deleteEndpoint',
  listDeliveries: '/v1/alerts.listDeliveries',
} as const;
export const STREAM_PATH = '/v1/analytics.stream';

interface Request {
  method: 'GET' | 'POST';
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  /** Sent again on 429/503 and network failures. */
  idempotent: boolean;
}

interface Answer {
  response: Response;
  body: string;
}

/** Marks the client's own deadline among abort reasons. */
class Deadline {}

export class AnalyticsClient {
  private readonly fetch: FetchLike;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly retry: RetryOptions;
  private readonly timeoutMs: number;

  constructor(private readonly options: ClientOptions) {
    // Bound to globalThis: browsers refuse a fetch called as a method of another object.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.retry =
      options.retry === false ? { ...DEFAULT_RETRY, maxAttempts: 1 } : { ...DEFAULT_RETRY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** GET /v1/analytics.getVerifications: the datapoints, their precision and the request id. */
  async getVerifications(
    params: GetVerificationsParams,
    call: CallOptions = {},
  ): Promise<VerificationsResult> {
    const { response, body } = await this.send(
      { method: 'GET', path: GET_VERIFICATIONS_PATH, query: encodeQuery(params), idempotent: true },
      call,
    );
    const datapoints = parseBody(body, response);
    if (!Array.isArray(datapoints)) throw unexpectedBody(response, 'an array of datapoints');
    return {
      datapoints: datapoints as Datapoint[],
      precision: precisionOf(response),
      requestId: response.headers.get('x-request-id') ?? undefined,
      timeZone: timeZoneOf(response),
    };
  }

  /**
   * POST /v1/analytics.createReadToken (root key with api.*.create_read_token or
   * api.<apiId>.create_read_token): a token that reads one API for one externalId until expiresAt.
   * Retried like reads: minting changes nothing but hands out one more short-lived token.
   */
  async createReadToken(request: CreateReadTokenRequest, call: CallOptions = {}): Promise<ReadToken> {
    const { response, body } = await this.send(
      { method: 'POST', path: CREATE_READ_TOKEN_PATH, body: request, idempotent: true },
      call,
    );
    const token = parseBody(body, response) as Partial<ReadToken> | null;
    if (typeof token?.token !== 'string') throw unexpectedBody(response, 'a read token');
    return token as ReadToken;
  }

  /**
   * GET /v1/apis.list: the APIs this credential may read (a root key: those of its workspace its
   * read permissions cover; a read token: its one API), sorted by apiId.
   */
  async listApis(call: CallOptions = {}): Promise<ApiList> {
    const { response, body } = await this.send(
      { method: 'GET', path: LIST_APIS_PATH, idempotent: true },
      call,
    );
    const list = parseBody(body, response) as Partial<ApiList> | null;
    if (!Array.isArray(list?.apis)) throw unexpectedBody(response, 'a list of APIs');
    return list as ApiList;
  }

  /**
   * GET /v1/analytics.stream: the answer of getVerifications now, then each time it changes (at most
   * twice a second), until the signal aborts or the loop is left. Reconnects by itself once started
   * (stream.ts says when); the first failure is thrown, so that a caller can poll instead.
   *
   *   for await (const { datapoints } of client.streamVerifications({ apiId: 'api_1' }, { signal })) draw(datapoints);
   */
  streamVerifications(
    params: GetVerificationsParams,
    options: StreamOptions = {},
  ): AsyncGenerator<StreamAnswer, void, undefined> {
    const { token } = this.options;
    return streamAnswers(
      {
        url: endpointUrl(this.options.baseUrl, STREAM_PATH, encodeQuery(params)),
        fetch: this.fetch,
        token: async () => (typeof token === 'function' ? await token() : token),
        headers: this.options.headers,
        clock: this.clock,
        random: this.random,
      },
      options,
    );
  }

  /**
   * Usage alerts (docs/alerts.md), with a root key holding api.*.manage_alerts (or api.<apiId>.manage_alerts
   * for one API's rules and delivery log). Creating and deleting are not retried: a lost answer could hide
   * a rule or endpoint made twice; listing is.
   */
  createAlertRule(rule: CreateAlertRuleRequest, call: CallOptions = {}): Promise<AlertRule> {
    return this.json({ method: 'POST', path: ALERTS_PATHS.createRule, body: rule, idempotent: false }, call);
  }

  listAlertRules(apiId: string, call: CallOptions = {}): Promise<AlertRuleList> {
    const query = new URLSearchParams({ apiId });
    return this.json({ method: 'GET', path: ALERTS_PATHS.listRules, query, idempotent: true }, call);
  }

  deleteAlertRule(rule: { apiId: string; ruleId: string }, call: CallOptions = {}): Promise<AlertDeleted> {
    return this.json({ method: 'POST', path: ALERTS_PATHS.deleteRule, body: rule, idempotent: false }, call);
  }

  /** The answer holds the endpoint's signing secret, shown this once. */
  createAlertEndpoint(
    endpoint: CreateAlertEndpointRequest,
    call: CallOptions = {},
  ): Promise<CreatedAlertEndpoint> {
    return this.json(
      { method: 'POST', path: ALERTS_PATHS.createEndpoint, body: endpoint, idempotent: false },
      call,
    );
  }

  listAlertEndpoints(call: CallOptions = {}): Promise<AlertEndpointList> {
    return this.json({ method: 'GET', path: ALERTS_PATHS.listEndpoints, idempotent: true }, call);
  }

  deleteAlertEndpoint(endpointId: string, call: CallOptions = {}): Promise<AlertDeleted> {
    const body = { endpointId };
    return this.json({ method: 'POST', path: ALERTS_PATHS.deleteEndpoint, body, idempotent: false }, call);
  }

  /** The API's webhook attempts, newest first (those of one alert with alertId). */
  listAlertDeliveries(params: ListDeliveriesParams, call: CallOptions = {}): Promise<DeliveryList> {
    const query = encodeQuery(params as GetVerificationsParams);
    return this.json({ method: 'GET', path: ALERTS_PATHS.listDeliveries, query, idempotent: true }, call);
  }

  /** A JSON object answer. */
  private async json<T>(request: Request, call: CallOptions): Promise<T> {
    const { response, body } = await this.send(request, call);
    const value = parseBody(body, response);
    if (typeof value !== 'object' || value === null) throw unexpectedBody(response, 'a JSON object');
    return value as T;
  }

  /** Sends a request with the deadline and retries; resolves with a 2xx answer, else throws. */
  protected async send(request: Request, call: CallOptions): Promise<Answer> {
    call.signal?.throwIfAborted();
    const controller = new AbortController();
    const stopTimer = new AbortController();
    const started = this.clock.now();
    const onCallerAbort = () => controller.abort(call.signal!.reason);
    call.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (this.timeoutMs > 0) {
      this.clock.sleep(this.timeoutMs, stopTimer.signal).then(
        () => controller.abort(new Deadline()),
        () => undefined, // the call ended first
      );
    }
    let attempt = 0;
    try {
      for (;;) {
        attempt++;
        let failure: FailedAttempt;
        let error: ApiError | NetworkError;
        try {
          const answer = await this.attempt(request, controller.signal);
          if (answer.response.ok) return answer;
          const retryAfterMs = parseRetryAfter(answer.response.headers.get('retry-after'), this.clock.now());
          failure = { kind: 'status', status: answer.response.status, retryAfterMs };
          error = errorFromAnswer({
            status: answer.response.status,
            statusText: answer.response.statusText,
            headers: answer.response.headers,
            body: answer.body,
            retryAfterMs,
            attempts: attempt,
          });
        } catch (cause) {
          if (controller.signal.aborted) throw cause; // mapped below
          failure = { kind: 'network' };
          error = new NetworkError(`${request.method} ${request.path} failed: ${messageOf(cause)}`, attempt, {
            cause,
          });
        }
        const delay = request.idempotent
          ? retryDelay({
              attempt,
              failure,
              options: this.retry,
              remainingMs: this.timeoutMs > 0 ? started + this.timeoutMs - this.clock.now() : undefined,
              random: this.random,
            })
          : null;
        if (delay === null) throw error;
        await this.clock.sleep(delay, controller.signal);
      }
    } catch (error) {
      if (controller.signal.aborted) {
        const reason: unknown = controller.signal.reason;
        if (reason instanceof Deadline) throw new TimeoutError(this.timeoutMs, attempt);
        throw reason;
      }
      throw error;
    } finally {
      stopTimer.abort();
      call.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private async attempt(request: Request, signal: AbortSignal): Promise<Answer> {
    const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.options.headers,
      authorization: `Bearer ${token}`,
    };
    const init: RequestInit = { method: request.method, headers, signal };
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(request.body);
    }
    const response = await this.fetch(endpointUrl(this.options.baseUrl, request.path, request.query), init);
    return { response, body: await response.text() };
  }
}

export function createClient(options: ClientOptions): AnalyticsClient {
  return new AnalyticsClient(options);
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici reports "fetch failed" and puts the reason (ECONNREFUSED …) in cause.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

function parseBody(body: string, response: Response): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw unexpectedBody(response, 'JSON');
  }
}

function unexpectedBody(response: Response, expected: string): ApiError {
  return new ApiError({
    status: response.status,
    type: 'about:blank',
    title: 'Unexpected response',
    detail: `The service answered ${response.status} without ${expected}.`,
    requestId: response.headers.get('x-request-id') ?? undefined,
    errors: [],
    retryAfterMs: undefined,
    attempts: 1,
  });
}
