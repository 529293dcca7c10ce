/**
 * Crossing-to-webhook latency: on names of their own (an empty prefix, fresh topics, removed afterwards)
 * the rules are stored, every workspace with rules gets an endpoint at the bench's receiver
 * (receiver.ts), and one ingest worker and one compactor run as `npm start` runs them, the compactor with
 * ALERTS_ALLOW_PRIVATE_URLS=on (docs/alerts.md "Addresses": the receiver is on 127.0.0.1). Live traffic of
 * the data set's shape (dataset.ts liveEvents) is produced at --rate for 5 + --alerts-seconds s; the
 * crossing clock (crossings.ts) notes which event makes each crossing and when its batch was sent. Then
 * the run waits for the webhooks: latency is from that send to the webhook's arrival, for the crossings
 * of the events sent after the first 5 s; every expected id must arrive, and nothing else.
 */
import type { Message } from 'kafkajs';
import type { AlertRule } from '@va/contracts';
import { eventMessage, processCpuSeconds } from '@va/testkit';
import { prepareService, type RunContext } from '../context';
import { liveEvents } from '../dataset';
import { connectedProducer, deleteTopics, recreateTopics } from '../kafka';
import { log } from '../log';
import { namesFor } from '../names';
import { producePaced } from '../paced-produce';
import { scrape } from '../prometheus';
import { redisCpuSeconds, resetStats, slowLog, type SlowLog } from '../redis-info';
import { deletePrefix } from '../redis-keys';
import { summarize, type Summary } from '../stats';
import { CrossingClock } from './crossings';
import { latencySummary, matchWebhooks, type LatencySummary, type WebhookMatch } from './figures';
import type { PlannedApi } from './plan';
import { startReceiver } from './receiver';
import { deliveryLog, registerEndpoints, storeRules, type DeliveryLogSummary } from './setup';

const WARMUP_SECONDS = 5;
/** After the last send, how long the run waits for the webhooks still due, at most. */
const DRAIN_MS = 120_000;
/** ...and how long without any arrival it takes as the end, once the producer stopped. */
const QUIET_MS = 20_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LatencyResult extends Omit<WebhookMatch, 'latencies' | 'detectMs' | 'deliverMs'> {
  rules: number;
  endpoints: number;
  targetRate: number;
  achievedRate: number;
  /** Seconds counted (after the warm-up). */
  seconds: number;
  /** Crossings the produced events make (all of them, the warm-up's included). */
  expected: number;
  /** Crossing-to-webhook ms of the crossings made after the warm-up. */
  latencyMs: LatencySummary;
  /** Its two parts: send to detection (the webhook's detectedAt), detection to arrival. */
  detectMs: LatencySummary;
  deliverMs: LatencySummary;
  deliveryLog: DeliveryLogSummary;
  produceAckMs: Summary;
  /** The compactor's webhook attempts (va_alerts_webhook_attempts_total, every outcome). */
  attempts: number;
  repeats: number;
  malformed: number;
  /** From the last send to the last webhook's arrival. */
  drainSeconds: number;
  /** CPU seconds over the produce window and the wait: ingest worker, compactor, Redis, bench process. */
  cpuSeconds: { worker: number; compactor: number; redis: number; bench: number };
  slowLog: SlowLog;
}

export async function alertLatency(
  ctx: RunContext,
  base: string,
  rules: readonly AlertRule[],
  apis: readonly PlannedApi[],
): Promise<LatencyResult> {
  const { redis, kafka, options } = ctx;
  const names = namesFor(`${base}-latency`);
  await deletePrefix(redis, names.prefix);
  await recreateTopics(kafka, names);
  const receiver = await startReceiver();
  try {
    await storeRules(redis, names.prefix, rules);
    const endpoints = await registerEndpoints(redis, names.prefix, apis, rules, receiver.url);
    const ingest = await prepareService(ctx, 'ingest', names);
    const compactor = await prepareService(ctx, 'compactor', names, { ALERTS_ALLOW_PRIVATE_URLS: 'on' });
    const services = [ingest.start(), compactor.start()];
    try {
      await services[0]!.waitHealthy(`${ingest.baseUrl}/health`, 120_000);
      await services[1]!.waitHealthy(`${compactor.baseUrl}/health`, 120_000);
      await resetStats(redis);
      const pids = services.map((s) => s.pid);
      const cpu0 = {
        services: pids.map((pid) => processCpuSeconds(pid)),
        redis: await redisCpuSeconds(redis),
      };
      const bench0 = process.cpuUsage();

      const clock = new CrossingClock(rules);
      const events = liveEvents(options.seed + 29);
      const producer = await connectedProducer(kafka);
      const started = Date.now();
      const countFrom = started + WARMUP_SECONDS * 1000;
      const until = countFrom + options.alertsSeconds * 1000;
      const acks: number[] = [];
      log(`alerts: ${options.freshnessRate} events/s for ${WARMUP_SECONDS + options.alertsSeconds} s`);
      const paced = producePaced(producer, names.topic, { rate: options.freshnessRate, until }, (count) => {
        const batch = Array.from({ length: count }, () => events.next().value!);
        const at = Date.now();
        for (const event of batch) clock.add(event, at);
        const messages: Message[] = batch.map((event) => eventMessage(event));
        const acked = () => {
          if (at >= countFrom) acks.push(Date.now() - at);
        };
        return { messages, acked };
      });
      const { sent, seconds } = await paced.finally(() => producer.disconnect());
      const lastSend = Date.now();
      const expected = clock.crossings;
      log(`alerts: ${sent} events sent, ${expected.size} crossings expected; waiting for the webhooks`);
      while (Date.now() - lastSend < DRAIN_MS) {
        if ([...expected.keys()].every((id) => receiver.arrivals.has(id))) break;
        if (Date.now() - Math.max(receiver.lastAt, lastSend) > QUIET_MS) break;
        await sleep(250);
      }
      await sleep(1_000); // a repeat or an unexpected webhook right behind the last one
      const cpu1 = pids.map((pid) => processCpuSeconds(pid));
      const bench = process.cpuUsage(bench0);
      const { latencies, detectMs, deliverMs, ...match } = matchWebhooks(
        expected,
        receiver.arrivals,
        receiver.detected,
        countFrom,
      );
      const attempts = (await scrape(compactor.metricsUrl)).get('va_alerts_webhook_attempts_total') ?? 0;
      return {
        ...match,
        rules: rules.length,
        endpoints,
        targetRate: options.freshnessRate,
        achievedRate: sent / seconds,
        seconds: options.alertsSeconds,
        expected: expected.size,
        latencyMs: latencySummary(latencies),
        detectMs: latencySummary(detectMs),
        deliverMs: latencySummary(deliverMs),
        deliveryLog: await deliveryLog(redis, names.prefix, apis),
        produceAckMs: summarize(acks),
        attempts,
        repeats: receiver.repeats,
        malformed: receiver.malformed,
        drainSeconds: Math.max(0, receiver.lastAt - lastSend) / 1000,
        cpuSeconds: {
          worker: cpu1[0]! - cpu0.services[0]!,
          compactor: cpu1[1]! - cpu0.services[1]!,
          redis: (await redisCpuSeconds(redis)) - cpu0.redis,
          bench: (bench.user + bench.system) / 1e6,
        },
        slowLog: await slowLog(redis),
      };
    } finally {
      await Promise.all(services.map((s) => s.stop()));
    }
  } finally {
    await receiver.close();
    await deleteTopics(kafka, names);
    await deletePrefix(redis, names.prefix);
  }
}
