/**
 * `produce`: writes generated verification events (generator.ts) to Kafka. Without a start time
 * the events are live (time = now, minus up to a second); with one, times are uniform in
 * [start, start + span). Progress bar on a TTY, a summary at the end. Options: ../program/produce.ts.
 */
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { SingleBar, Presets } from 'cli-progress';
import { loadConfig } from '@va/config';
import { OUTCOMES } from '@va/contracts';
import { eventMessage, produceMessages, createGenerator } from '@va/testkit';

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
  function* messages() {
    for (let n = 0; n < options.events; n++) {
      const event = generator.next();
      perOutcome.set(event.outcome, perOutcome.get(event.outcome)! + 1);
      if (event.time < minTime) minTime = event.time;
      if (event.time > maxTime) maxTime = event.time;
      yield eventMessage(event);
    }
  }

  const kafka = new Kafka({
    clientId: 'va-cli-produce',
    brokers: config.kafkaBrokers,
    logLevel: logLevel.WARN,
  });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const bar = process.stdout.isTTY
    ? new SingleBar(
        { format: 'produce [{bar}] {percentage}% | {value}/{total} events | {eta}s left' },
        Presets.shades_classic,
      )
    : undefined;
  bar?.start(options.events, 0);
  const started = Date.now();
  try {
    const sent = await produceMessages(producer, messages(), {
      topic,
      rate: options.rate,
      onProgress: (n) => bar?.update(n),
    });
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
    await producer.disconnect();
  }
}
