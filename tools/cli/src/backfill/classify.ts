/**
 * What the backfill does with one record (pure): the ingest worker's own decoder decides
 * (services/ingest/src/decode.ts), so that the CLI refuses exactly what the worker would refuse.
 * Valid: a message for the backfill topic, key = apiId (or apiId/keyId), the original bytes as value. Invalid: a
 * dead-letter record in the worker's format (dead-letter.ts).
 */
import type { Message } from 'kafkajs';
import { messageKey, type MessageKey } from '@va/contracts';
import { decodeEvent, deadLetterMessage, type DecodeContext, type DlqReason } from '@va/ingest';
import type { SourceRecord } from './source';

export type Classified = { ok: true; message: Message } | { ok: false; reason: DlqReason; message: Message };

export function classify(record: SourceRecord, ctx: DecodeContext, key: MessageKey = 'apiId'): Classified {
  const decoded = decodeEvent(record.value, ctx);
  if (decoded.ok) {
    return {
      ok: true,
      message: {
        key: messageKey(decoded, key),
        value: record.value,
        ...(record.headers && { headers: record.headers }),
      },
    };
  }
  return {
    ok: false,
    reason: decoded.reason,
    message: deadLetterMessage({ ...record, reason: decoded.reason, detail: decoded.detail }),
  };
}
