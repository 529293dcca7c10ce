/**
 * The bench's data set: one "medium tenant" (one API with 10,000 keys, 2,000 identities and the
 * generator's 20 tags) plus 100 small APIs as background traffic, a tenth of the medium tenant's
 * volume. Events come from the seeded generator of @va/testkit (libs/testkit/src/generator.ts), so a
 * (seed, events, days, anchor) quadruple always gives the same events; only the names of the APIs
 * are rewritten here so that the two populations never share an API.
 */
import type { Message } from 'kafkajs';
import type { VerificationEvent } from '@va/contracts';
import { eventMessage, createGenerator, type EventGenerator } from '@va/testkit';

export const MEDIUM_API = 'medium';
export const MEDIUM_WORKSPACE = 'ws_medium';
export const MEDIUM_KEYS = 10_000;
export const MEDIUM_IDENTITIES = 2_000;
export const BACKGROUND_APIS = 100;
export const BACKGROUND_KEYS = 2_000;
export const BACKGROUND_IDENTITIES = 500;
/** Background events per medium-tenant event. */
export const BACKGROUND_SHARE = 0.1;
const DAY_MS = 86_400_000;
/** The background's names: the generator's `api_<n>` and `ws_<n>`, never the medium tenant's. */
const backgroundName = (name: string): string => `bg_${name}`;

/**
 * Order of the events in the topic: `time` as a topic holds its history (the data set is
 * "produced to Kafka in time order"); `random`, times drawn independently (every batch then spreads
 * over the whole span: the hardest case for ingest).
 */
export type DataSetOrder = 'time' | 'random';
export const DATA_SET_ORDERS: readonly DataSetOrder[] = ['time', 'random'];

export interface DataSetSpec {
  seed: number;
  /** Events of the medium tenant. */
  events: number;
  days: number;
  /** Unix ms: event times are uniform in [anchorMs - days, anchorMs). */
  anchorMs: number;
  /** Absent in the meta of data sets loaded before it existed: random. */
  order?: DataSetOrder;
}

export const backgroundEvents = (spec: Pick<DataSetSpec, 'events'>): number =>
  Math.round(spec.events * BACKGROUND_SHARE);
export const totalEvents = (spec: Pick<DataSetSpec, 'events'>): number =>
  spec.events + backgroundEvents(spec);

interface TimeSource {
  startMs: number;
  spanMs: number;
  clock?: () => number;
  jitterMs?: number;
  /** In time order (the generator's timeOrdered), both populations over the whole span. */
  ordered?: boolean;
}

function generators(
  seed: number,
  counts: { medium: number; background: number },
  { ordered, ...time }: TimeSource,
): { medium: EventGenerator; background: EventGenerator } {
  const medium = createGenerator({
    seed,
    apis: 1,
    workspaces: 1,
    keys: MEDIUM_KEYS,
    identities: MEDIUM_IDENTITIES,
    ...time,
    ...(ordered && { timeOrdered: counts.medium }),
  });
  const background = createGenerator({
    seed: seed + 1_000_003,
    apis: BACKGROUND_APIS,
    keys: BACKGROUND_KEYS,
    identities: BACKGROUND_IDENTITIES,
    ...time,
    ...(ordered && { timeOrdered: counts.background }),
  });
  return { medium, background };
}

/**
 * Interleaves the two populations deterministically (a background event whenever the background
 * falls behind its share), so that every stretch of the topic has the same mix. Counts may be
 * Infinity (live traffic).
 */
function* interleaved(
  seed: number,
  mediumCount: number,
  backgroundCount: number,
  time: TimeSource,
): Generator<VerificationEvent> {
  const { medium, background } = generators(seed, { medium: mediumCount, background: backgroundCount }, time);
  let m = 0;
  let b = 0;
  while (m < mediumCount || b < backgroundCount) {
    const takeBackground = b < backgroundCount && (m >= mediumCount || b < m * BACKGROUND_SHARE);
    if (takeBackground) {
      const event = background.next();
      event.apiId = backgroundName(event.apiId);
      event.workspaceId = backgroundName(event.workspaceId);
      b++;
      yield event;
    } else {
      const event = medium.next();
      event.apiId = MEDIUM_API;
      event.workspaceId = MEDIUM_WORKSPACE;
      m++;
      yield event;
    }
  }
}

/** Every API of the data set with its workspace: the medium tenant first, then the background's. */
export function dataSetApis(): { apiId: string; workspaceId: string }[] {
  const { background } = generators(0, { medium: 0, background: 0 }, { startMs: 0, spanMs: 1 });
  return [
    { apiId: MEDIUM_API, workspaceId: MEDIUM_WORKSPACE },
    ...background.apiIds.map((apiId, a) => ({
      apiId: backgroundName(apiId),
      workspaceId: backgroundName(background.workspaceOf(a)),
    })),
  ];
}

/**
 * Medium-tenant events (plus their background share) with times uniform in [startMs, startMs + spanMs),
 * in time order or drawn independently.
 */
export function* messagesOver(
  seed: number,
  events: number,
  startMs: number,
  spanMs: number,
  order: DataSetOrder = 'random',
): Generator<Message> {
  const time = { startMs, spanMs, ordered: order === 'time' };
  for (const event of interleaved(seed, events, backgroundEvents({ events }), time))
    yield eventMessage(event);
}

/** The historical data set as Kafka messages (key = apiId). */
export function dataSetMessages(spec: DataSetSpec): Generator<Message> {
  const spanMs = spec.days * DAY_MS;
  return messagesOver(spec.seed, spec.events, spec.anchorMs - spanMs, spanMs, spec.order ?? 'random');
}

/** Endless live traffic of the same shape (time = now minus up to 1 s), for the freshness probes. */
export function liveEvents(seed: number): Iterator<VerificationEvent> {
  const time = { startMs: 0, spanMs: 1, clock: () => Date.now(), jitterMs: 1000 };
  return interleaved(seed, Infinity, Infinity, time);
}
