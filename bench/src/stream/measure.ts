/**
 * The live-updates measurement against running services: open the planned streams through @va/client
 * (its streamVerifications, as a dashboard reads them), produce live traffic with a mark per batch
 * (marks.ts), then time every mark to the answer that first includes it, per stream.
 */
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import type { Kafka, Message } from 'kafkajs';
import { createClient, type StreamAnswer } from '@va/client';
import { processCpuSeconds, eventMessage } from '@va/testkit';
import { connectedProducer } from '../kafka';
import { producePaced } from '../paced-produce';
import { log } from '../log';
import { scrape } from '../prometheus';
import { summarize, type Summary } from '../stats';
import { MarkBook, pushLatencies, type Stamp } from './marks';
import { liveTraffic, scopeOf, type PlannedStream } from './plan';

export interface StreamTarget {
  kafka: Kafka;
  topic: string;
  baseUrl: string;
  metricsUrl: string;
  queryPid: number;
  /** One credential per planned stream: a root key or a read token. */
  tokens: string[];
  plan: PlannedStream[];
  /** The streams' fixed start: before the first event. */
  start: number;
  apis: number;
  rate: number;
  seconds: number;
  warmupSeconds: number;
  seed: number;
}

export interface StreamMeasure {
  streams: number;
  queries: number;
  targetRate: number;
  achievedRate: number;
  seconds: number;
  /** Marks timed (one per stream and batch that changed its count, after the warm-up). */
  latencyMs: Summary;
  /** How long the broker took to acknowledge each counted batch (part of the latency). */
  produceAckMs: Summary;
  unseen: number;
  /** Answers received over the whole run, all streams. */
  answers: number;
  /** The query service: RSS before any stream, with every stream open, and at the end (bytes). */
  rss: { before: number; open: number; end: number };
  /** Query service CPU seconds over the produce window, and the bench process' own. */
  cpuSeconds: number;
  benchCpuSeconds: number;
  /** va_query_stream_* over the produce window. */
  readsPerSecond: number;
  changedReadsPerSecond: number;
  signalsPerSecond: number;
  eventsPerSecond: number;
  openMs: number;
}

const DRAIN_MS = 4_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** VmRSS of a process in bytes (Linux /proc), NaN when it cannot be read. */
export function rssBytes(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) * 1024;
  } catch {
    return Number.NaN;
  }
}

const countOf = (answer: StreamAnswer): number => answer.datapoints.reduce((s, d) => s + d.total, 0);

function streamParams(s: PlannedStream, start: number) {
  return s.kind === 'identity'
    ? { apiId: s.apiId, externalId: s.externalId!, start, groupBy: ['hour' as const] }
    : { apiId: s.apiId, start, groupBy: [s.kind] };
}

async function streamMetrics(url: string) {
  const m = await scrape(url);
  return {
    reads: m.get('va_query_stream_reads_total') ?? 0,
    signals: m.get('va_query_stream_signals_total') ?? 0,
    events: m.get('va_query_stream_events_total') ?? 0,
    queries: m.get('va_query_stream_queries') ?? 0,
    open: m.get('va_query_streams_open') ?? 0,
  };
}

async function changedReads(url: string): Promise<number> {
  const text = await (await fetch(url)).text();
  const sample = /^va_query_stream_reads_total\{[^}]*outcome="changed"[^}]*\}\s+(\S+)/m.exec(text);
  return Number(sample?.[1] ?? 0);
}

export async function measureStreams(target: StreamTarget): Promise<StreamMeasure> {
  const controller = new AbortController();
  setMaxListeners(target.plan.length + 10, controller.signal); // one listener per stream
  const answers: Stamp[][] = target.plan.map(() => []);
  let answerCount = 0;
  const rssBefore = rssBytes(target.queryPid);

  // Open every stream, 50 at a time; each is open once its first answer arrived.
  const opened = Date.now();
  const loops: Promise<void>[] = [];
  for (let from = 0; from < target.plan.length; from += 50) {
    const firsts: Promise<void>[] = [];
    for (let n = from; n < Math.min(from + 50, target.plan.length); n++) {
      let first!: () => void;
      let failed!: (e: unknown) => void;
      firsts.push(new Promise<void>((resolve, reject) => ((first = resolve), (failed = reject))));
      const client = createClient({ baseUrl: target.baseUrl, token: target.tokens[n]! });
      const iterator = client.streamVerifications(streamParams(target.plan[n]!, target.start), {
        signal: controller.signal,
      });
      loops.push(
        (async () => {
          try {
            for await (const answer of iterator) {
              answers[n]!.push({ at: Date.now(), total: countOf(answer) });
              answerCount++;
              first();
            }
          } catch (error) {
            failed(error);
            if (!controller.signal.aborted) throw error;
          }
        })(),
      );
    }
    await Promise.all(firsts);
  }
  const openMs = Date.now() - opened;
  const rssOpen = rssBytes(target.queryPid);
  log(`streams: ${target.plan.length} open in ${openMs} ms; producing ${target.rate} events/s`);

  const book = new MarkBook();
  const producer = await connectedProducer(target.kafka);
  const next = liveTraffic(target.seed, target.apis, Date.now);
  const metrics0 = await streamMetrics(target.metricsUrl);
  const changed0 = await changedReads(target.metricsUrl);
  const cpu0 = processCpuSeconds(target.queryPid);
  const benchCpu0 = process.cpuUsage();
  const started = Date.now();
  const countFrom = started + target.warmupSeconds * 1000;
  const until = countFrom + target.seconds * 1000;
  const acks: number[] = [];
  const paced = producePaced(producer, target.topic, { rate: target.rate, until }, (count) => {
    const messages: Message[] = [];
    const counts = new Map<string, number>();
    for (let n = 0; n < count; n++) {
      const event = next();
      messages.push(eventMessage(event));
      for (const scope of [scopeOf(event.apiId), scopeOf(event.apiId, event.identity?.externalId)])
        counts.set(scope, (counts.get(scope) ?? 0) + 1);
    }
    const at = Date.now();
    book.record(at, counts); // just before the send, as the freshness probes
    const acked = () => {
      if (at >= countFrom) acks.push(Date.now() - at);
    };
    return { messages, acked };
  });
  const { sent } = await paced.finally(() => producer.disconnect());
  const produced = (Date.now() - started) / 1000;
  const cpuSeconds = processCpuSeconds(target.queryPid) - cpu0;
  const benchCpu = process.cpuUsage(benchCpu0);
  const metrics1 = await streamMetrics(target.metricsUrl);
  const changed1 = await changedReads(target.metricsUrl);
  await sleep(DRAIN_MS); // the last batches' answers
  const rssEnd = rssBytes(target.queryPid);
  controller.abort();
  await Promise.allSettled(loops);

  const latencies: number[] = [];
  let unseen = 0;
  target.plan.forEach((s, n) => {
    const r = pushLatencies(book.marksOf(s.scope), answers[n]!, countFrom);
    for (const l of r.latencies) latencies.push(l);
    unseen += r.unseen;
  });
  const window = produced;
  return {
    streams: target.plan.length,
    queries: metrics0.queries,
    targetRate: target.rate,
    achievedRate: sent / produced,
    seconds: target.seconds,
    latencyMs: summarize(latencies),
    produceAckMs: summarize(acks),
    unseen,
    answers: answerCount,
    rss: { before: rssBefore, open: rssOpen, end: rssEnd },
    cpuSeconds,
    benchCpuSeconds: (benchCpu.user + benchCpu.system) / 1e6,
    readsPerSecond: (metrics1.reads - metrics0.reads) / window,
    changedReadsPerSecond: (changed1 - changed0) / window,
    signalsPerSecond: (metrics1.signals - metrics0.signals) / window,
    eventsPerSecond: (metrics1.events - metrics0.events) / window,
    openMs,
  };
}
