/**
 * The Kafka side of the worker: the consumer (with the settings of libs/config), its control port,
 * and the DLQ producer.
 */
import { Kafka, Partitioners, type Consumer, type Producer } from 'kafkajs';
import type { Config, IngestSettings } from '@va/config';
import type { Logger } from '@va/runtime';
import type { ConsumerControl } from '../core/ports';
import { deadLetterMessage, type DeadLetter } from '../dead-letter';
import { pinoLogCreator } from '../kafka-logger';

export function kafkaClient(config: Config, logger: Logger): Kafka {
  return new Kafka({
    clientId: 'va-ingest',
    brokers: config.kafkaBrokers,
    logCreator: pinoLogCreator(logger),
  });
}

export function ingestConsumer(kafka: Kafka, config: Config, settings: IngestSettings): Consumer {
  return kafka.consumer({
    groupId: config.consumerGroup,
    sessionTimeout: settings.sessionTimeout,
    heartbeatInterval: settings.heartbeatInterval,
    rebalanceTimeout: settings.rebalanceTimeout,
    maxBytesPerPartition: settings.maxBytesPerPartition,
    maxBytes: settings.maxBytes,
    minBytes: settings.minBytes,
    maxWaitTimeInMs: settings.maxWaitTimeInMs,
  });
}

export function consumerControl(consumer: Consumer): ConsumerControl {
  return {
    seek: (topic, partition, offset) => consumer.seek({ topic, partition, offset: String(offset) }),
    pause: (topic) => consumer.pause([{ topic }]),
    resume: (topic) => consumer.resume([{ topic }]),
  };
}

export function dlqProducer(kafka: Kafka): Producer {
  return kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
}

/** Produces dead letters with acks from every in-sync replica; resolves once acknowledged. */
export function produceDeadLetters(producer: Producer, dlqTopic: string) {
  return async (records: DeadLetter[]): Promise<void> => {
    await producer.send({ topic: dlqTopic, acks: -1, messages: records.map(deadLetterMessage) });
  };
}
