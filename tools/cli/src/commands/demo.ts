/**
 * `demo`: registers a demo API to a demo workspace, produces a small realistic set of events for it
 * to the live topic (with @va/producer, key = apiId) and waits until the ingest worker has counted
 * them, so that the next query sees all of them. Options: ../program/demo.ts.
 */
import { loadConfig } from '@va/config';
import { createProducer } from '@va/producer';
import { registerApi } from '@va/store';
import { demoEvents } from '../demo/events';
import { cliKafka, topicOffsets } from '../ops/kafka';
import { waitApplied, type AppliedTarget } from '../ops/wait-applied';
import { withRedis } from './with-redis';

export interface DemoCommandOptions {
  workspace: string;
  api: string;
  events: number;
  hours: number;
  seed: number;
  timeoutMs: number;
}

export async function demoCommand(options: DemoCommandOptions): Promise<number> {
  const config = loadConfig();
  const registered = await withRedis((redis) =>
    registerApi(redis, config.keyPrefix, options.api, options.workspace),
  );
  if (!registered.ok) {
    process.stderr.write(`demo: ${options.api} already belongs to another workspace\n`);
    return 1;
  }
  const events = demoEvents({ ...options, now: Date.now() });
  const kafka = cliKafka(config, 'va-cli-demo');
  const before = await topicOffsets(kafka, [config.topic]);
  const producer = createProducer({ topic: config.topic, kafka });
  await producer.connect();
  try {
    for (const event of events) await producer.send(event);
    await producer.flush();
  } finally {
    await producer.close();
  }
  const after = await topicOffsets(kafka, [config.topic]);
  const targets: AppliedTarget[] = after.flatMap((p) => {
    const from = before.find((b) => b.partition === p.partition)?.high ?? 0;
    return p.high > from ? [{ topic: p.topic, partition: p.partition, first: from, last: p.high - 1 }] : [];
  });
  const result = await withRedis((redis) =>
    waitApplied(redis, kafka, targets, {
      prefix: config.keyPrefix,
      group: config.consumerGroup,
      timeoutMs: options.timeoutMs,
    }),
  );
  const what = `${events.length} demo events for API ${options.api} of workspace ${options.workspace} (last ${options.hours} h)`;
  if (result.status !== 'applied') {
    process.stderr.write(
      `demo: produced ${what}, but ${result.status === 'no-worker' ? 'no ingest worker is running' : 'the ingest worker did not count them in time'} ` +
        `(${result.applied} of ${result.total} applied); they are counted once a worker runs (npm start)\n`,
    );
    return 3;
  }
  process.stdout.write(`counted ${what}\n`);
  return 0;
}
