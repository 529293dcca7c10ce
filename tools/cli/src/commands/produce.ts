/**
 * `produce --events N [--rate R] --apis A --keys K --identities I [--seed S] [--start-ms MS]
 *  [--span-ms MS] [--topic T]`: writes generated verification events (generator.ts) to Kafka.
 * Without --start-ms the events are live (time = now, minus up to a second); with it, times are
 * uniform in [start, start + span). Sent with @va/producer (validated, key = apiId, idempotent).
 * Progress bar on a TTY, a summary at the end.
 */
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { SingleBar, Presets } from 'cli-progress';
import { loadConfig } from '@va/config';
import { OUTCOMES } from '@va/contracts';
import { createProducer } from '@va/producer';
import { createGenerator } from '@va/testkit';

export const usage = [
  '  produce --events N [--rate R] --apis A --keys K --identities I [--seed S] [--start-ms MS] [--span-ms MS] [--topic T]',
  '      writes N generated events (Zipf-like APIs and keys, 0-3 tags, all outcomes) to Kafka;',
  '      --rate events/s (default: as fast as possible); --start-ms/--span-ms: historical times instead of now',
].join('\n');

function fail(message: string): number {
  process.stderr.write(`produce: ${message}\n${usage}\n`);
  return 2;
}

function count(raw: string | undefined, name: string, fallback?: number): number {
  if (raw === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new UsageError(`--${name} must be a non-negative integer`);
  return value;
}

class UsageError extends Error {}

interface ProduceArgs {
  events: number;
  rate: number;
  apis: number;
  keys: number;
  identities: number;
  seed: number;
  startMs: number | undefined;
  spanMs: number;
  topic: string | undefined;
}

function parse(args: string[]): ProduceArgs {
  const { values, positionals } = parseArgs({
    args,
    options: {
      events: { type: 'string' },
      rate: { type: 'string' },
      apis: { type: 'string' },
      keys: { type: 'string' },
      identities: { type: 'string' },
      seed: { type: 'string' },
      'start-ms': { type: 'string' },
      'span-ms': { type: 'string' },
      topic: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const apis = count(values.apis, 'apis', 10);
  if (apis < 1) throw new UsageError('--apis must be at least 1');
  const start = values['start-ms'];
  return {
    events: count(values.events, 'events'),
    rate: count(values.rate, 'rate', 0),
    apis,
    keys: count(values.keys, 'keys', 1000),
    identities: count(values.identities, 'identities', 200),
    seed: count(values.seed, 'seed', Date.now() % 2 ** 31),
    startMs: start === undefined ? undefined : count(start, 'start-ms'),
    spanMs: count(values['span-ms'], 'span-ms', 3_600_000),
    topic: values.topic,
  };
}

export async function run(args: string[]): Promise<number> {
  let options: ProduceArgs;
  try {
    options = parse(args);
  } catch (err) {
    if (err instanceof UsageError) return fail(err.message);
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      return fail(err.message);
    }
    throw err;
  }

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

  // @va/producer: validated events, key = apiId, idempotent batches (a retry never writes twice).
  const bar = process.stdout.isTTY
    ? new SingleBar(
        { format: 'produce [{bar}] {percentage}% | {value}/{total} events | {eta}s left' },
        Presets.shades_classic,
      )
    : undefined;
  let delivered = 0;
  const producer = createProducer<undefined>({
    topic,
    brokers: config.kafkaBrokers,
    clientId: 'va-cli-produce',
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
