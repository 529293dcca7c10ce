/**
 * Freshness: the time from producing an event to seeing it counted in a query, at a steady rate of
 * live traffic (10,000 events/s, the data set's shape: medium tenant + background).
 *
 * Every `probeEveryMs` a probe event rides along in the traffic: API `probe`, a key of its own
 * (`p<n>`). t0 is taken just before the send that carries it. One poller asks the query service
 * for all outstanding probe keys at once (`keyId=p1,p2,...&groupBy=key`, one request in flight) and
 * stamps a probe when its row appears; the stamp is the time the answer arrived, so the figure
 * includes the query itself. Probes of the first seconds (group join, JIT) are not counted.
 */
import type { Kafka, Message, Producer } from 'kafkajs';
import { eventMessage } from '@va/testkit';
import { liveEvents, MEDIUM_WORKSPACE } from '../dataset';
import { getRows } from '../http';
import { connectedProducer } from '../kafka';
import { log } from '../log';
import { producePaced } from '../paced-produce';
import { summarize, type Summary } from '../stats';

export const PROBE_API = 'probe';

export interface FreshnessResult {
  targetRate: number;
  achievedRate: number;
  seconds: number;
  probes: number;
  /** Probes not visible within the timeout. */
  lost: number;
  latencyMs: Summary;
  /** How long the broker took to acknowledge the sends that carried probes (part of the latency). */
  produceAckMs: Summary;
  polls: number;
}

export interface FreshnessTarget {
  kafka: Kafka;
  topic: string;
  baseUrl: string;
  rootKey: string;
  rate: number;
  seconds: number;
  warmupSeconds: number;
  probeEveryMs: number;
  seed: number;
}

const PROBE_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Probe {
  key: string;
  sentAt: number;
  counted: boolean;
  seenAt?: number;
  ackMs?: number;
}

function probeMessage(key: string, now: number): Message {
  return eventMessage({
    requestId: `probe_${key}_${now}`,
    time: now,
    workspaceId: MEDIUM_WORKSPACE,
    apiId: PROBE_API,
    keyId: key,
    outcome: 'VALID',
  });
}

/** Sends `rate` events/s in ticks of 50 ms, probes included, without waiting for acks in between. */
async function produceLive(
  producer: Producer,
  target: FreshnessTarget,
  probes: Map<string, Probe>,
  until: number,
  countAfter: number,
): Promise<number> {
  const events = liveEvents(target.seed);
  let nextProbeAt = Date.now();
  const { sent } = await producePaced(producer, target.topic, { rate: target.rate, until }, (count) => {
    const messages: Message[] = [];
    for (let n = 0; n < count; n++) messages.push(eventMessage(events.next().value!));
    let probe: Probe | undefined;
    const now = Date.now();
    if (now >= nextProbeAt) {
      probe = { key: `p${probes.size + 1}`, sentAt: now, counted: now >= countAfter };
      probes.set(probe.key, probe);
      messages.push(probeMessage(probe.key, now));
      nextProbeAt += target.probeEveryMs;
    }
    const acked = () => {
      if (probe) probe.ackMs = Date.now() - probe.sentAt;
    };
    return { messages, acked };
  });
  return sent;
}

/** Polls for every outstanding probe at once until all are seen or timed out. */
async function pollProbes(
  target: FreshnessTarget,
  probes: Map<string, Probe>,
  done: () => boolean,
): Promise<number> {
  let polls = 0;
  for (;;) {
    const now = Date.now();
    const outstanding = [...probes.values()].filter(
      (p) => p.seenAt === undefined && now - p.sentAt < PROBE_TIMEOUT_MS,
    );
    if (outstanding.length === 0) {
      if (done()) return polls;
      await sleep(2);
      continue;
    }
    const search = new URLSearchParams([
      ['apiId', PROBE_API],
      ['keyId', outstanding.map((p) => p.key).join(',')],
      ['groupBy', 'key'],
      ['start', String(now - 3_600_000)],
    ]);
    const reply = await getRows(target.baseUrl, `/v1/analytics.getVerifications?${search}`, target.rootKey);
    const arrived = Date.now();
    polls++;
    if (reply.status !== 200) throw new Error(`probe poll: HTTP ${reply.status}`);
    for (const row of reply.rows) {
      const probe = row.keyId === undefined ? undefined : probes.get(row.keyId);
      if (probe && probe.seenAt === undefined && row.total > 0) probe.seenAt = arrived;
    }
    await sleep(2);
  }
}

export async function measureFreshness(target: FreshnessTarget): Promise<FreshnessResult> {
  const producer = await connectedProducer(target.kafka);
  try {
    // One probe end to end first: the worker has joined, the query service has the probe API.
    const primer = new Map<string, Probe>([['p0', { key: 'p0', sentAt: Date.now(), counted: false }]]);
    await producer.send({ topic: target.topic, acks: -1, messages: [probeMessage('p0', Date.now())] });
    await pollProbes(target, primer, () => true);
    if (primer.get('p0')?.seenAt === undefined)
      throw new Error('freshness: the primer probe never became visible');

    const probes = new Map<string, Probe>();
    const started = Date.now();
    const countAfter = started + target.warmupSeconds * 1000;
    const until = countAfter + target.seconds * 1000;
    let producing = true;
    log(`freshness: ${target.rate} events/s for ${target.warmupSeconds + target.seconds} s`);
    const poller = pollProbes(target, probes, () => !producing);
    const sent = await produceLive(producer, target, probes, until, countAfter).finally(() => {
      producing = false;
    });
    const producedSeconds = (Date.now() - started) / 1000;
    const polls = await poller;
    const counted = [...probes.values()].filter((p) => p.counted);
    const seen = counted.filter((p) => p.seenAt !== undefined);
    return {
      targetRate: target.rate,
      achievedRate: sent / producedSeconds,
      seconds: target.seconds,
      probes: counted.length,
      lost: counted.length - seen.length,
      latencyMs: summarize(seen.map((p) => p.seenAt! - p.sentAt)),
      produceAckMs: summarize(counted.flatMap((p) => (p.ackMs === undefined ? [] : [p.ackMs]))),
      polls,
    };
  } finally {
    await producer.disconnect();
  }
}
