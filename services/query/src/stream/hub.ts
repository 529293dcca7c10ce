/**
 * The live streams of one query service (docs/api.md#stream): their caps, their groups (one per distinct
 * query: query-group.ts), the change signal that wakes the groups of an API (signals.ts), heartbeats,
 * and their end when the service stops.
 */
import type { Logger } from '@va/runtime';
import type { RedisClient } from '@va/store';
import { ApiError } from '../http/api-error';
import type { StreamMetrics } from './metrics';
import { MIN_INTERVAL_MS, QueryGroup, type GroupDeps } from './query-group';
import type { StreamAnswerBytes } from './read';
import { OpenStream } from './open-stream';
import { listenForChanges, type ChangeListener } from './signals';
import type { StreamQuery } from './stream-query';

export interface HubDeps {
  redis: RedisClient;
  prefix: string;
  read(query: StreamQuery): Promise<StreamAnswerBytes>;
  now(): number;
  /** QUERY_STREAM_MAX: open streams of this process (0: none). */
  max: number;
  /** QUERY_STREAM_MAX_PER_KEY: open streams of one root key in this process (0: no limit of its own). */
  maxPerKey: number;
  refreshMs: number;
  heartbeatMs: number;
  metrics: StreamMetrics;
  logger?: Logger;
}

/** A stream's place under the caps, from before its first answer until it ends. */
export interface Seat {
  release(): void;
}

/** Why a stream may not open: the process is full (503) or its root key (429). */
export type Full = 'process' | 'key';

/** Errors of a later read that end its streams: the query no longer fits (it would never read again). */
const FINAL_KINDS = new Set([
  'invalid_input',
  'query_too_expensive',
  'forbidden',
  'not_found',
  'unauthorized',
]);

export class StreamHub {
  private readonly groups = new Map<string, QueryGroup>();
  private readonly byApi = new Map<string, Set<QueryGroup>>();
  private readonly streams = new Set<OpenStream>();
  private readonly perKey = new Map<string, number>();
  private seats = 0;
  private listener: ChangeListener | undefined;
  private heartbeats: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly groupDeps: GroupDeps;

  constructor(private readonly deps: HubDeps) {
    this.groupDeps = {
      read: deps.read,
      now: deps.now,
      minIntervalMs: MIN_INTERVAL_MS,
      refreshMs: deps.refreshMs,
      metrics: deps.metrics,
      isFinal: (error): error is ApiError => error instanceof ApiError && FINAL_KINDS.has(error.kind),
      onTransient: (error, query) =>
        deps.logger?.warn({ err: error, apiId: query.apiId }, 'stream query read failed: the streams go on'),
      onIdle: (group) => this.forget(group),
    };
  }

  get openStreams(): number {
    return this.streams.size;
  }

  get queries(): number {
    return this.groups.size;
  }

  /** A seat under the caps for a stream of this root key, or why there is none. */
  reserve(rootKeyHash: string): Seat | Full {
    // The key's own cap first: a key over it is told so (429), whatever room the process has.
    const ofKey = this.perKey.get(rootKeyHash) ?? 0;
    if (this.deps.maxPerKey > 0 && ofKey >= this.deps.maxPerKey) return 'key';
    if (this.closed || this.seats >= this.deps.max) return 'process';
    this.seats++;
    this.perKey.set(rootKeyHash, ofKey + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.seats--;
        const left = (this.perKey.get(rootKeyHash) ?? 1) - 1;
        if (left > 0) this.perKey.set(rootKeyHash, left);
        else this.perKey.delete(rootKeyHash);
      },
    };
  }

  /** The group of a query, made (and read) when it has none; its first answer awaited (group.enter). */
  async enter(query: StreamQuery): Promise<QueryGroup> {
    if (this.closed) throw new ApiError('too_many_streams', 'The service is stopping; connect again.');
    this.start();
    let group = this.groups.get(query.key);
    if (!group || group.isClosed) {
      group = new QueryGroup(query, this.groupDeps);
      this.groups.set(query.key, group);
      let ofApi = this.byApi.get(query.apiId);
      if (!ofApi) this.byApi.set(query.apiId, (ofApi = new Set()));
      ofApi.add(group);
    }
    await group.enter();
    return group;
  }

  /** Tracks an open stream (heartbeats, the end on close). */
  track(stream: OpenStream): void {
    this.streams.add(stream);
  }

  untrack(stream: OpenStream): void {
    this.streams.delete(stream);
  }

  /** A change signal: every query of these APIs reads again (each at most once per MIN_INTERVAL_MS). */
  changed(apiIds: readonly string[]): void {
    this.deps.metrics.signals.inc();
    for (const apiId of apiIds) for (const group of this.byApi.get(apiId) ?? []) group.changed();
  }

  /** Ends every stream (the clients reconnect, to another instance, with Last-Event-ID) and the subscription. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeats);
    for (const stream of [...this.streams]) stream.end();
    for (const group of [...this.groups.values()]) group.close();
    await this.listener?.close();
    this.listener = undefined;
  }

  /** The subscription and the heartbeats, with the first stream. */
  private start(): void {
    if (this.listener) return;
    this.listener = listenForChanges(
      this.deps.redis,
      this.deps.prefix,
      {
        onChange: (apiIds) => this.changed(apiIds),
        onResync: () => {
          for (const group of this.groups.values()) group.changed();
        },
      },
      this.deps.logger,
    );
    this.heartbeats = setInterval(() => {
      for (const stream of this.streams) stream.heartbeat();
    }, this.deps.heartbeatMs);
    this.heartbeats.unref();
  }

  private forget(group: QueryGroup): void {
    if (this.groups.get(group.query.key) === group) this.groups.delete(group.query.key);
    const ofApi = this.byApi.get(group.query.apiId);
    ofApi?.delete(group);
    if (ofApi?.size === 0) this.byApi.delete(group.query.apiId);
  }
}
