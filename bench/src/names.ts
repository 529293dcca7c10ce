/**
 * Names the bench owns: one Redis key prefix, topics and consumer group per data set, so that a
 * run never touches anybody's data and `--skip-produce` finds its data set again by name.
 */
import type { DataSetSpec } from './dataset';

export interface BenchNames {
  /** REDIS_KEY_PREFIX of the services; every key the bench writes starts with `<prefix>:`. */
  prefix: string;
  topic: string;
  dlqTopic: string;
  backfillTopic: string;
  group: string;
}

export function namesFor(id: string): BenchNames {
  const topic = `${id}.events`;
  return {
    prefix: id,
    topic,
    dlqTopic: `${topic}.dlq`,
    backfillTopic: `${topic}.backfill`,
    group: `${id}-ingest`,
  };
}

/**
 * The data set's names: a different size, span, seed or order is a different data set. Random order
 * keeps the name it had before the order could be chosen.
 */
export const dataSetId = (spec: Pick<DataSetSpec, 'events' | 'days' | 'seed' | 'order'>): string =>
  `vabench-${spec.events}e-${spec.days}d-s${spec.seed}${spec.order === 'time' ? '-t' : ''}`;

export interface ServicePorts {
  query: number;
  ingestMetrics: number;
  compactorMetrics: number;
  queryMetrics: number;
}

/** Environment of a service child process: libs/config variables pointing at the bench's servers and names. */
export function serviceEnv(
  servers: { kafkaBrokers: string[]; redisUrl: string },
  names: BenchNames,
  ports: ServicePorts,
  extra: Record<string, string> = {},
): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return {
    ...inherited,
    KAFKA_BROKERS: servers.kafkaBrokers.join(','),
    REDIS_URL: servers.redisUrl,
    REDIS_KEY_PREFIX: names.prefix,
    KAFKA_TOPIC: names.topic,
    KAFKA_DLQ_TOPIC: names.dlqTopic,
    KAFKA_BACKFILL_TOPIC: names.backfillTopic,
    KAFKA_GROUP: names.group,
    PORT: String(ports.query),
    HOST: '127.0.0.1',
    INGEST_METRICS_PORT: String(ports.ingestMetrics),
    COMPACTOR_METRICS_PORT: String(ports.compactorMetrics),
    QUERY_METRICS_PORT: String(ports.queryMetrics),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    ...extra,
  };
}
