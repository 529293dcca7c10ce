/**
 * Dead-letter records (pure): the original key, value and headers untouched, plus headers that
 * say why and where from. Delivery is at-least-once: a batch replayed after a crash may
 * dead-letter the same message again (x-original-* identify it).
 */
import type { IHeaders, Message } from 'kafkajs';
import type { DlqReason } from './reasons';

export interface DeadLetter {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders | undefined;
  reason: DlqReason;
  detail: string;
}

/** Header values are bytes on the wire, but keep them short and single-line for operators. */
const MAX_DETAIL = 512;
const singleLine = (s: string): string =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, MAX_DETAIL);

export function deadLetterMessage(d: DeadLetter): Message {
  return {
    key: d.key,
    value: d.value,
    headers: {
      ...d.headers,
      'x-dlq-reason': d.reason,
      'x-dlq-detail': singleLine(d.detail),
      'x-original-topic': d.topic,
      'x-original-partition': String(d.partition),
      'x-original-offset': d.offset,
    },
  };
}
