/**
 * The tail data set of #41 (`npm run bench -- --tail`): the seeded tail workload of @va/workload
 * (createTailGenerator: 5,000 APIs in 1,000 workspaces, Zipf s = 1.1), `events` events over the 30 days
 * before the anchor, in time order, as Kafka messages keyed by apiId.
 */
import type { Message } from 'kafkajs';
import { createTailGenerator, eventMessage, TAIL_DEFAULTS, tailApiId, tailShare } from '@va/testkit';

export const TAIL_DAYS = 30;
const DAY_MS = 86_400_000;

export interface TailSpec {
  seed: number;
  events: number;
  /** Unix ms: event times are in [anchorMs - 30 days, anchorMs). */
  anchorMs: number;
}

export const tailDataSetId = (spec: Pick<TailSpec, 'seed' | 'events'>): string =>
  `vabench-tail-${spec.events}e-${TAIL_DAYS}d-s${spec.seed}`;

export function* tailMessages(spec: TailSpec): Generator<Message> {
  const spanMs = TAIL_DAYS * DAY_MS;
  const generator = createTailGenerator({
    seed: spec.seed,
    events: spec.events,
    startMs: spec.anchorMs - spanMs,
    spanMs,
  });
  for (let n = 0; n < spec.events; n++) yield eventMessage(generator.next());
}

/** An API the queries ask about, by its rank in traffic (0 = the busiest). */
export interface TailApi {
  label: string;
  apiId: string;
  rank: number;
  /** Events the Zipf law gives it (the real count differs by chance). */
  expectedEvents: number;
}

/** The median API (rank apis/2) and one of the top 10 (rank 9). */
export function queriedApis(events: number): TailApi[] {
  const ranks: [string, number][] = [
    ['median', Math.floor(TAIL_DEFAULTS.apis / 2) - 1],
    ['top-10', 9],
  ];
  return ranks.map(([label, rank]) => ({
    label,
    apiId: tailApiId(rank),
    rank,
    expectedEvents: Math.round(tailShare(rank) * events),
  }));
}
