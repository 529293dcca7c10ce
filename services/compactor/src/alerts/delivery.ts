/**
 * The webhook delivery of usage alerts (docs/alerts.md "Delivery"), run by the compactor process: a
 * poll every ALERTS_POLL_MS turns new crossings into jobs (fan-out.ts), and a BullMQ worker sends each
 * job's webhook, signed (signature.ts), to an allowed address (send.ts), retrying with backoff
 * (backoff.ts) for a day. Every attempt is logged in the API's delivery log; no secret is ever logged.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { Counter, type Registry } from 'prom-client';
import {
  ALERT_WEBHOOK_TYPE,
  type AlertCrossing,
  type AlertWebhookPayload,
  type DeliveryAttempt,
} from '@va/contracts';
import type { Config } from '@va/config';
import type { Logger } from '@va/runtime';
import {
  appendDeliveryAttempt,
  connectRedis,
  findAlertEndpoint,
  globalKeys,
  subscribes,
  type RedisClient,
} from '@va/store';
import { type BackoffSettings, DEFAULT_BACKOFF, deliveryBackoffMs } from './backoff';
import { createFanOut } from './fan-out';
import { DELIVERY_QUEUE, type DeliverJobData } from './jobs';
import { sendWebhook, type SendResult } from './send';
import { webhookHeaders } from './signature';

export type AlertDeliveryConfig = Pick<
  Config,
  | 'redisUrl'
  | 'redisClusterNodes'
  | 'keyPrefix'
  | 'alertsAllowPrivateUrls'
  | 'alertsDeliveryTimeoutMs'
  | 'alertsPollMs'
  | 'alertsDeliveryConcurrency'
  | 'alertsRetryBaseMs'
  | 'alertsDeliveryLockMs'
  | 'alertsClaimIdleMs'
>;

export interface AlertDeliveryDeps {
  config: AlertDeliveryConfig;
  logger: Logger;
  now: () => number;
  /** Tests set the whole schedule (base and cap); else ALERTS_RETRY_BASE_MS up to DEFAULT_BACKOFF's cap. */
  backoff?: BackoffSettings;
  /** Tests shorten how long a dead reader's crossings wait to be taken over; else ALERTS_CLAIM_IDLE_MS. */
  claimIdleMs?: number;
  registry?: Registry;
}

export interface AlertDelivery {
  start(): Promise<void>;
  stop(): Promise<void>;
  healthy(): boolean;
}

/** The JSON body of a crossing's webhook: the same bytes for every attempt and every replay. */
export function webhookBody(crossing: AlertCrossing): string {
  const payload: AlertWebhookPayload = {
    type: ALERT_WEBHOOK_TYPE,
    timestamp: new Date(crossing.detectedAt).toISOString(),
    data: crossing,
  };
  return JSON.stringify(payload);
}

export function createAlertDelivery(deps: AlertDeliveryDeps): AlertDelivery {
  const { config, logger } = deps;
  const prefix = globalKeys(config.keyPrefix).bull;
  // The count of attempts stays DELIVERY_ATTEMPTS whatever the base (jobs.ts).
  const backoff = deps.backoff ?? { ...DEFAULT_BACKOFF, baseMs: config.alertsRetryBaseMs };
  const queueConnection = connectRedis(config, { maxRetriesPerRequest: null });
  const workerConnection = connectRedis(config, { maxRetriesPerRequest: null });
  const store: RedisClient = connectRedis(config);
  for (const client of [queueConnection, workerConnection, store]) {
    client.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis'));
  }
  const queue = new Queue(DELIVERY_QUEUE, { connection: queueConnection, prefix });
  const attempts = new Counter({
    name: 'va_alerts_webhook_attempts_total',
    help: 'Webhook attempts of usage alerts, by outcome (delivered, failed, refused, gave_up, dropped).',
    labelNames: ['outcome'],
    registers: deps.registry ? [deps.registry] : [],
  });
  const fanOut = createFanOut({
    store,
    queue,
    prefix: config.keyPrefix,
    consumer: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    logger,
    now: deps.now,
    claimIdleMs: deps.claimIdleMs ?? config.alertsClaimIdleMs,
  });

  async function log(apiId: string, attempt: DeliveryAttempt): Promise<void> {
    attempts.inc({ outcome: attempt.outcome });
    logger.info(
      {
        alertId: attempt.alertId,
        endpointId: attempt.endpointId,
        attempt: attempt.attempt,
        outcome: attempt.outcome,
        status: attempt.status,
      },
      'webhook attempt',
    );
    try {
      await appendDeliveryAttempt(store, config.keyPrefix, apiId, attempt);
    } catch (err) {
      // The webhook's fate does not hang on its log entry: a retry after a delivered attempt would send it twice.
      logger.warn({ err: (err as Error).message }, 'delivery log write failed');
    }
  }

  async function deliver(job: Job<DeliverJobData>): Promise<string> {
    const { workspaceId, endpointId, crossing, replay } = job.data;
    const attempt = job.attemptsMade + 1;
    const started = deps.now();
    const entry = {
      alertId: crossing.alertId,
      endpointId,
      attempt,
      at: started,
      ...(replay && { replay: true }),
    };
    const endpoint = await findAlertEndpoint(store, config.keyPrefix, workspaceId, endpointId);
    if (endpoint === null || !subscribes(endpoint, crossing.ruleId)) {
      await log(crossing.apiId, {
        ...entry,
        outcome: 'dropped',
        error: 'the endpoint or its subscription is gone',
        durationMs: 0,
      });
      return 'dropped';
    }
    const body = webhookBody(crossing);
    const result: SendResult = await sendWebhook({
      url: endpoint.url,
      headers: {
        ...webhookHeaders(endpoint.secret, crossing.alertId, Math.floor(deps.now() / 1000), body),
        'user-agent': 'verification-analytics-alerts/1',
      },
      body,
      timeoutMs: config.alertsDeliveryTimeoutMs,
      allowPrivate: config.alertsAllowPrivateUrls,
    });
    const last = attempt >= (job.opts.attempts ?? 1);
    const outcome = result.outcome !== 'delivered' && last ? 'gave_up' : result.outcome;
    await log(crossing.apiId, {
      ...entry,
      outcome,
      ...('status' in result && result.status !== undefined && { status: result.status }),
      ...('error' in result && { error: result.error }),
      durationMs: deps.now() - started,
    });
    if (result.outcome !== 'delivered') throw new Error(result.error);
    return 'delivered';
  }

  // A job's lock outlives its attempt; a killed worker's job is sent again by another after it.
  const lockMs = Math.max(config.alertsDeliveryLockMs, 2 * config.alertsDeliveryTimeoutMs);
  const worker = new Worker<DeliverJobData>(DELIVERY_QUEUE, deliver, {
    connection: workerConnection,
    prefix,
    autorun: false,
    concurrency: config.alertsDeliveryConcurrency,
    lockDuration: lockMs,
    // A killed worker's job is found stalled at the first check after its lock ran out.
    stalledInterval: lockMs,
    maxStalledCount: 1_000_000,
    settings: { backoffStrategy: (attemptsMade: number) => deliveryBackoffMs(attemptsMade, backoff) },
  });
  worker.on('error', (err: Error) => logger.warn({ err: err.message }, 'delivery worker error'));

  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();
  const poll = () => {
    polling = fanOut
      .once()
      .then(
        (queued) => {
          if (queued > 0) logger.debug({ queued }, 'webhooks queued');
        },
        (err: unknown) => logger.warn({ err: (err as Error).message }, 'crossings poll failed'),
      )
      .finally(() => {
        if (running) timer = setTimeout(poll, config.alertsPollMs);
      });
  };

  return {
    async start() {
      running = true;
      worker.run().catch((err: unknown) => {
        running = false;
        logger.error({ err }, 'delivery worker stopped');
      });
      poll();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await polling;
      await worker.close();
      await queue.close();
      for (const client of [queueConnection, workerConnection, store]) client.disconnect();
    },
    healthy() {
      return running && worker.isRunning() && store.status === 'ready';
    },
  };
}
