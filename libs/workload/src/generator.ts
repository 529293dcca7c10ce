/**
 * A seeded generator of realistic verification events (pure: the same options give the same
 * events). Used by `produce`, the ingest tests and the benchmark (import by relative path).
 *
 * Shape of the traffic:
 *   - APIs by a Zipf-like law (a few heavy APIs); API a belongs to workspace ws_<a mod W>;
 *   - keys: key j belongs to API j mod A; inside an API, keys are again Zipf-like;
 *   - each key belongs to one identity or to none (~30% none), fixed per key;
 *   - 0–3 tags from a 20-tag vocabulary (Zipf-like, repeats and any order: the set is what counts);
 *   - all nine outcomes, VALID dominant (~80%);
 *   - time uniform in [startMs, startMs + spanMs), or from a clock (live traffic) when given; with
 *     `timeOrdered`, in time order (a topic's history, as verification services append it).
 */
import type { Outcome, VerificationEvent } from '@va/contracts';

export interface GeneratorOptions {
  seed: number;
  apis: number;
  /** Distinct keys over all APIs (at least one per API). */
  keys: number;
  /** Distinct identities over all keys. */
  identities: number;
  /** Workspaces; default ceil(apis / 3). */
  workspaces?: number;
  startMs: number;
  spanMs: number;
  /**
   * Times in order for this many events: event n (from 0) gets a time uniform in the n-th of as many
   * equal slices of the span, so the times are nondecreasing and, taken together, as uniform over
   * the span as without the option. Every other field is the same as without it (one draw each).
   */
  timeOrdered?: number;
  /** Live mode: time = clock() minus up to `jitterMs` (instead of startMs/spanMs). */
  clock?: () => number;
  jitterMs?: number;
}

export const TAG_VOCABULARY: readonly string[] = [
  'env:production',
  'env:staging',
  'plan:free',
  'plan:pro',
  'plan:enterprise',
  'region:eu',
  'region:us',
  'region:apac',
  'sdk:node',
  'sdk:go',
  'sdk:python',
  'beta tester',
  'internal',
  'mobile',
  'web',
  'cli',
  'trial',
  'früh-zugang',
  'partner/acme',
  'tier:gold',
];

export const OUTCOME_WEIGHTS: Record<Outcome, number> = {
  VALID: 80,
  NOT_FOUND: 4,
  FORBIDDEN: 2,
  USAGE_EXCEEDED: 3,
  RATE_LIMITED: 5,
  UNAUTHORIZED: 2,
  DISABLED: 1.5,
  INSUFFICIENT_PERMISSIONS: 1.5,
  EXPIRED: 1,
};
export const REGIONS = ['us-east-1', 'eu-west-1', 'ap-south-1'];

/** mulberry32: small, fast, good enough for test traffic. Returns [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Samples 0..n-1 with weight 1 / (i + 1)^s. */
export function zipfSampler(n: number, s = 1.1): (u: number) => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += 1 / Math.pow(i + 1, s);
    cdf[i] = sum;
  }
  return (u) => {
    const x = u * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function weighted<T extends string>(weights: Record<T, number>): (u: number) => T {
  const entries = Object.entries(weights) as [T, number][];
  const total = entries.reduce((s, [, w]) => s + w, 0);
  return (u) => {
    let x = u * total;
    for (const [value, w] of entries) {
      x -= w;
      if (x < 0) return value;
    }
    return entries[entries.length - 1]![0];
  };
}

/** A fixed pseudo-random integer per (n, salt): keeps a key's identity stable. */
export function hash32(n: number, salt: number): number {
  let h = Math.imul(n ^ salt, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

export interface EventGenerator {
  next(): VerificationEvent;
  readonly apiIds: readonly string[];
  workspaceOf(apiIndex: number): string;
}

export function createGenerator(options: GeneratorOptions): EventGenerator {
  const { seed, apis, identities } = options;
  const keys = Math.max(options.keys, apis);
  const workspaces = options.workspaces ?? Math.ceil(apis / 3);
  const random = seededRandom(seed);
  const pickApi = zipfSampler(apis);
  const keysPerApi = (a: number) => Math.floor((keys - 1 - a) / apis) + 1; // keys j ≡ a (mod apis)
  const pickKeyOf = Array.from({ length: apis }, (_, a) => zipfSampler(keysPerApi(a), 1.05));
  const pickTag = zipfSampler(TAG_VOCABULARY.length, 0.9);
  const pickOutcome = weighted(OUTCOME_WEIGHTS);
  const apiIds = Array.from({ length: apis }, (_, a) => `api_${a}`);
  const workspaceOf = (a: number) => `ws_${a % workspaces}`;
  let n = 0;

  const identityOf = (j: number): VerificationEvent['identity'] => {
    if (identities === 0 || hash32(j, 1) % 10 < 3) return undefined;
    const i = hash32(j, 2) % identities;
    return { id: `ident_${i}`, externalId: i % 7 === 0 ? `Kundin ${i} ✓` : `user-${i}@example.com` };
  };

  return {
    apiIds,
    workspaceOf,
    next(): VerificationEvent {
      const a = pickApi(random());
      const j = pickKeyOf[a]!(random()) * apis + a;
      const u = random();
      const ordered = options.timeOrdered;
      const time = options.clock
        ? options.clock() - Math.floor(u * (options.jitterMs ?? 0))
        : ordered
          ? options.startMs + Math.floor(((Math.min(n, ordered - 1) + u) / ordered) * options.spanMs)
          : options.startMs + Math.floor(u * options.spanMs);
      const event: VerificationEvent = {
        requestId: `req_${seed.toString(36)}_${(n++).toString(36)}`,
        time,
        workspaceId: workspaceOf(a),
        apiId: apiIds[a]!,
        keyId: `key_${j}`,
        outcome: pickOutcome(random()),
      };
      const identity = identityOf(j);
      if (identity) event.identity = identity;
      const v = random();
      const tagCount = v < 0.45 ? 0 : v < 0.75 ? 1 : v < 0.9 ? 2 : 3;
      if (tagCount > 0 || v < 0.05) {
        event.tags = Array.from({ length: tagCount }, () => TAG_VOCABULARY[pickTag(random())]!);
      }
      if (random() < 0.5) event.region = REGIONS[Math.floor(random() * REGIONS.length)]!;
      return event;
    },
  };
}
