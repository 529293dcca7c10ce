/**
 * `produce`: writes generated verification events (generator.ts) to Kafka. Without a start time
 * the events are live (time = now, minus up to a second); with one, times are uniform in
 * [start, start + span). Sent with @va/producer (validated, key = apiId or apiId/keyId, idempotent).
 * A progress bar on stderr when stderr is a terminal (../ops/progress-output.ts), a summary on stdout at
 * the end. Options: ../program/produce.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { SingleBar, Presets } from 'cli-progress';
import { loadConfig } from '@va/config';
import { OUTCOMES, type MessageKey } from '@va/contracts';
import { createProducer } from '@va/producer';
import { createGenerator } from '@va/workload';
import { progressOutput } from '../ops/progress-output';

export interface ProduceOptions {
  events: number;
  /** Events per second; 0 = as fast as possible. */
  rate: number;
  apis: number;
  keys: number;
  identities: number;
  /** Generator seed; undefined = a fresh one (printed in the summary). */
  seed?: number | undefined;
  /** Unix ms of the first event time; undefined = live events. */
  startMs?: number | undefined;
  spanMs: number;
  /** Defaults to the live topic (KAFKA_TOPIC). */
  topic?: string | undefined;
  /** Message key (default apiId); apiId+keyId spreads an API over the partitions. */
  key?: MessageKey | undefined;
}

export async function produceCommand(input: ProduceOptions): Promise<number> {
  const options = { ...input, seed: input.seed ?? Date.now() % 2 ** 31 };
  const config = loadConfig();
  const topic = options.topic ?? config.topic;
  const generator = createGenerator({
    seed: options.seed,
    apis: options.apis,
    keys: options.keys,
    identities: options.identities,
    startMs: options.startMs ?? 0,
    spanMs: options.spanMs,
    ...(options.startMs === undefined ? { clock: () => Date.now(), jitterMs: 1000 } : {}),
  });
  const perOutcome = new Map<string, number>(OUTCOMES.map((o) => [o, 0]));
  let minTime = Infinity;
  let maxTime = -Infinity;

  // @va/producer: validated events, key = apiId (or apiId/keyId), idempotent batches (a retry never writes twice).
  const bar =
    progressOutput({ stderrIsTTY: process.stderr.isTTY === true }) === 'bar'
      ? new SingleBar(
          {
            format: 'produce [{bar}] {percentage}% | {value}/{total} events | {eta}s left',
            stream: process.stderr,
          },
          Presets.shades_classic,
        )
      : undefined;
  let delivered = 0;
  const producer = createProducer<undefined>({
    topic,
    brokers: config.kafkaBrokers,
    clientId: 'va-cli-produce',
    key: options.key ?? 'apiId',
    logLevel: logLevel.WARN,
    registry: new Registry(), // a one-shot command: nobody scrapes its metrics
    onDelivered: ({ refs }) => {
      delivered += refs.length;
      bar?.update(delivered);
    },
  });
  bar?.start(options.events, 0);
  const started = Date.now();
  try {
    await producer.connect();
    for (let n = 0; n < options.events; n++) {
      // --rate: hold back while ahead of the schedule (checked every 1/20 s worth of events).
      if (options.rate > 0 && n % Math.max(1, Math.floor(options.rate / 20)) === 0) {
        const wait = started + (n / options.rate) * 1000 - Date.now();
        if (wait > 0) await sleep(wait);
      }
      const event = generator.next();
      perOutcome.set(event.outcome, perOutcome.get(event.outcome)! + 1);
      if (event.time < minTime) minTime = event.time;
      if (event.time > maxTime) maxTime = event.time;
      await producer.send(event);
    }
    await producer.flush();
    const sent = producer.sent;
    bar?.stop();
    const seconds = (Date.now() - started) / 1000;
    const summary = [
      `produced ${sent} events to ${topic} in ${seconds.toFixed(1)} s (${Math.round(sent / Math.max(seconds, 0.001))} events/s)`,
      `  seed ${options.seed}, ${options.apis} APIs, ${options.keys} keys, ${options.identities} identities`,
      sent > 0 ? `  time ${new Date(minTime).toISOString()} .. ${new Date(maxTime).toISOString()}` : '',
      `  outcomes ${[...perOutcome].map(([o, n]) => `${o}=${n}`).join(' ')}`,
    ];
    process.stdout.write(`${summary.filter(Boolean).join('\n')}\n`);
    return 0;
  } finally {
    bar?.stop();
    await producer.close();
  }
}
