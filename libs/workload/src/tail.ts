/**
 * The long tail of small tenants (issue #41): many APIs in many workspaces, most of them with a few
 * events an hour, a few busy ones. Seeded and pure: the same options give the same events.
 *
 * Shape (defaults are the data set):
 *   - `apis` APIs (5,000) in `workspaces` workspaces (1,000): API a is `tail_<a>` in `tail_ws_<a mod W>`;
 *   - API traffic Zipf-like with exponent `zipf` (1.1): API 0 is the busiest (~16% of the events at the
 *     defaults), API apis/2 has the median traffic (~87 events of 3M);
 *   - each API has a fixed number of keys in [minKeys, maxKeys] (5–200), used Zipf-like inside it;
 *   - two thirds of the keys belong to an identity (fixed per key; about two keys per identity), the
 *     others to none;
 *   - 0–3 tags per event from the 20-tag vocabulary, the generator's outcome mix, 80% with a region;
 *   - times in order over [startMs, startMs + spanMs): event n gets a time uniform in the n-th of
 *     `events` equal slices of the span, as a topic holds its history.
 */
import type { VerificationEvent } from '@va/contracts';
import {
  hash32,
  OUTCOME_WEIGHTS,
  REGIONS,
  seededRandom,
  TAG_VOCABULARY,
  weighted,
  zipfSampler,
} from './generator';

export interface TailOptions {
  seed: number;
  /** Events in all (times are ordered over the span for exactly this many). */
  events: number;
  startMs: number;
  spanMs: number;
  apis?: number;
  workspaces?: number;
  zipf?: number;
  minKeys?: number;
  maxKeys?: number;
}

export const TAIL_DEFAULTS = { apis: 5_000, workspaces: 1_000, zipf: 1.1, minKeys: 5, maxKeys: 200 };

export const tailApiId = (a: number): string => `tail_${a}`;
export const tailWorkspaceId = (a: number, workspaces = TAIL_DEFAULTS.workspaces): string =>
  `tail_ws_${a % workspaces}`;

/** Keys of API a (fixed per API and seed-independent, so that a smaller run keeps each API's shape). */
export function tailKeysOf(
  a: number,
  minKeys = TAIL_DEFAULTS.minKeys,
  maxKeys = TAIL_DEFAULTS.maxKeys,
): number {
  return minKeys + (hash32(a, 11) % (maxKeys - minKeys + 1));
}

/**
 * The expected share of the events that API a gets: 1/(a+1)^s over the sum. The bench picks its
 * median and top-10 APIs by rank from it.
 */
export function tailShare(a: number, apis = TAIL_DEFAULTS.apis, s = TAIL_DEFAULTS.zipf): number {
  let sum = 0;
  for (let i = 0; i < apis; i++) sum += 1 / Math.pow(i + 1, s);
  return 1 / Math.pow(a + 1, s) / sum;
}

export interface TailGenerator {
  next(): VerificationEvent;
}

export function createTailGenerator(options: TailOptions): TailGenerator {
  const { seed, events, startMs, spanMs } = options;
  const apis = options.apis ?? TAIL_DEFAULTS.apis;
  const workspaces = options.workspaces ?? TAIL_DEFAULTS.workspaces;
  const minKeys = options.minKeys ?? TAIL_DEFAULTS.minKeys;
  const maxKeys = options.maxKeys ?? TAIL_DEFAULTS.maxKeys;
  const random = seededRandom(seed);
  const pickApi = zipfSampler(apis, options.zipf ?? TAIL_DEFAULTS.zipf);
  // Samplers per key count (at most maxKeys - minKeys + 1 distinct ones), built when first needed.
  const keySamplers = new Map<number, (u: number) => number>();
  const pickKey = (keys: number) => {
    let sampler = keySamplers.get(keys);
    if (!sampler) keySamplers.set(keys, (sampler = zipfSampler(keys, 1.05)));
    return sampler;
  };
  const pickTag = zipfSampler(TAG_VOCABULARY.length, 0.9);
  const pickOutcome = weighted(OUTCOME_WEIGHTS);
  let n = 0;

  return {
    next(): VerificationEvent {
      const a = pickApi(random());
      const keys = tailKeysOf(a, minKeys, maxKeys);
      const k = pickKey(keys)(random());
      const slice = Math.min(n, events - 1);
      const time = startMs + Math.floor(((slice + random()) / events) * spanMs);
      const event: VerificationEvent = {
        requestId: `req_t${seed.toString(36)}_${(n++).toString(36)}`,
        time,
        workspaceId: tailWorkspaceId(a, workspaces),
        apiId: tailApiId(a),
        keyId: `key_${a}_${k}`,
        outcome: pickOutcome(random()),
      };
      // Two thirds of the keys have an identity; about two keys share one.
      if (hash32(a * 1_000 + k, 1) % 3 !== 0) {
        const i = hash32(a * 1_000 + k, 2) % Math.max(1, Math.round(keys / 3));
        event.identity = { id: `ident_${a}_${i}`, externalId: `user-${i}@tenant-${a}.example` };
      }
      const v = random();
      const tagCount = v < 0.45 ? 0 : v < 0.75 ? 1 : v < 0.9 ? 2 : 3;
      if (tagCount > 0)
        event.tags = Array.from({ length: tagCount }, () => TAG_VOCABULARY[pickTag(random())]!);
      if (random() < 0.8) event.region = REGIONS[Math.floor(random() * REGIONS.length)]!;
      return event;
    },
  };
}
