/**
 * The live-updates run's shape (docs/benchmarks.md "Live updates"): which streams open, and the events.
 *
 * Streams: N over A APIs (`live_<a>`), a dashboard's mix per API, two in five by day and two in five by
 * hour on a root key, one in five an end user's own page through a read token (its externalId, by hour).
 * Root keys take the streams in turn, the read tokens' counted with their minting key, so that none passes
 * QUERY_STREAM_MAX_PER_KEY. Events: Zipf over the APIs (a few busy ones, a tail of quiet ones), 20
 * identities per API of which the watched ones are `e0` and `e1`, all nine outcomes, times "now".
 */
import type { VerificationEvent } from '@va/contracts';
import { OUTCOME_WEIGHTS, seededRandom, weighted, zipfSampler } from '@va/testkit';

export const LIVE_WORKSPACE = 'ws_live';
export const liveApiId = (a: number): string => `live_${a}`;
const IDENTITIES = 20;
const WATCHED_IDENTITIES = 2;

export type StreamKind = 'day' | 'hour' | 'identity';

export interface PlannedStream {
  apiId: string;
  kind: StreamKind;
  /** The end user of an `identity` stream (read through a read token). */
  externalId?: string;
  /** The root key (index into the pool) that reads it or minted its read token. */
  rootKey: number;
  /** MarkBook scope whose count the stream's answers show. */
  scope: string;
}

export const scopeOf = (apiId: string, externalId?: string): string =>
  externalId === undefined ? apiId : `${apiId}/${externalId}`;

/** Root keys needed so that none holds more than `perKey` of `streams`. */
export const rootKeysFor = (streams: number, perKey: number): number =>
  Math.max(1, Math.ceil(streams / Math.max(1, Math.floor(perKey / 2))));

export function planStreams(streams: number, apis: number, rootKeys: number): PlannedStream[] {
  const kinds: StreamKind[] = ['day', 'hour', 'day', 'hour', 'identity'];
  const plan: PlannedStream[] = [];
  for (let n = 0; n < streams; n++) {
    const apiId = liveApiId(n % apis);
    const round = Math.floor(n / apis);
    const kind = kinds[round % kinds.length]!;
    const externalId =
      kind === 'identity' ? `e${Math.floor(round / kinds.length) % WATCHED_IDENTITIES}` : undefined;
    plan.push({ apiId, kind, externalId, rootKey: n % rootKeys, scope: scopeOf(apiId, externalId) });
  }
  return plan;
}

/** Seeded live events over `apis` APIs; each carries `time` = the clock's now when drawn. */
export function liveTraffic(seed: number, apis: number, now: () => number): () => VerificationEvent {
  const random = seededRandom(seed);
  const api = zipfSampler(apis, 0.8);
  const outcome = weighted(OUTCOME_WEIGHTS);
  let n = 0;
  return () => {
    const a = api(random());
    const identity = Math.floor(random() * IDENTITIES);
    n++;
    return {
      requestId: `live_${seed}_${n}`,
      time: now(),
      workspaceId: LIVE_WORKSPACE,
      apiId: liveApiId(a),
      keyId: `k${a}_${identity}`,
      outcome: outcome(random()),
      identity: { id: `id${a}_${identity}`, externalId: `e${identity}` },
    };
  };
}
