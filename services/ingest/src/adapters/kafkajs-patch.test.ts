/**
 * patches/kafkajs+2.2.4.patch (applied by `patch-package` on every `npm install`) computes a record's
 * offset and timestamp in doubles while they are exact, instead of a BigInt-backed Long per record,
 * and filters a fetched batch by offset the same way. These properties hold the patched code to the
 * code it replaces (kafkajs's own Long arithmetic, kept below as the reference): the same strings for
 * every 64-bit value, on both sides of 2^53, for every varlong length, and the same messages kept by
 * the batch's offset filter. A round trip through kafkajs's own batch encoder (plain and gzip) checks the
 * patched decoder's records whole: offsets, timestamps, keys, values and headers.
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

interface KafkaEncoder {
  buffer: Buffer;
}
interface KafkaDecoder {
  offset: number;
  readInt8(): number;
  readVarInt(): number;
  readVarLong(): KafkaLong;
  readVarIntBytes(): Buffer | null;
}
interface KafkaLong {
  add(other: KafkaLong | number): KafkaLong;
  gte(other: KafkaLong): boolean;
  toString(): string;
}
interface DecodedRecord {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[]>;
}
interface BatchContext {
  firstOffset: string;
  firstTimestamp: string;
  maxTimestamp: string;
  timestampType: number;
  magicByte: number;
  isControlBatch: boolean;
}

const RECORD_DECODER = 'kafkajs/src/protocol/recordBatch/record/v0/decoder.js';
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (record: {
  offsetDelta: number;
  timestampDelta: bigint;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | Buffer[]>;
}) => KafkaEncoder;
const decodeRecord = require(RECORD_DECODER) as (
  decoder: KafkaDecoder,
  context: BatchContext,
) => DecodedRecord;
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (buffer: Buffer) => KafkaDecoder;
const Long = require('kafkajs/src/utils/long.js') as { fromValue(value: string): KafkaLong };
type Headers = Record<string, Buffer | Buffer[]>;
interface BatchRecord {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer;
  headers: Headers;
}
const { RecordBatch: encodeBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js') as {
  RecordBatch: (batch: {
    compression: number;
    firstOffset: KafkaLong;
    firstTimestamp: number;
    maxTimestamp: number;
    lastOffsetDelta: number;
    records: KafkaEncoder[];
  }) => Promise<KafkaEncoder>;
};
const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder.js') as (
  decoder: KafkaDecoder,
) => Promise<{ records: DecodedRecord[] }>;
const { Types: Compression } = require('kafkajs/src/protocol/message/compression/index.js') as {
  Types: { None: number; GZIP: number };
};
const Batch = require('kafkajs/src/consumer/batch.js') as new (
  topic: string,
  fetchedOffset: string,
  partitionData: { partition: number; highWatermark: string; messages: unknown[]; abortedTransactions: [] },
) => { messages: { offset: string }[] };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Offset and timestamp as kafkajs 2.2.4 computes them unpatched (its record decoder, headers aside). */
function referenceDecode(decoder: KafkaDecoder, context: BatchContext) {
  decoder.readInt8();
  const timestampDelta = decoder.readVarLong();
  const timestamp =
    context.timestampType === 1 && context.maxTimestamp
      ? context.maxTimestamp
      : Long.fromValue(context.firstTimestamp).add(timestampDelta).toString();
  const offset = Long.fromValue(context.firstOffset).add(decoder.readVarInt()).toString();
  return { offset, timestamp, key: decoder.readVarIntBytes(), value: decoder.readVarIntBytes() };
}

/** 64-bit values, most of them near the edges the patch cares about (0, 2^53, 2^63). */
const int64 = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 45n }),
  fc.bigInt({ min: SAFE - 1000n, max: SAFE + 1000n }),
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
);
/** Timestamp deltas: small (1–2 byte varlongs), up to 7 bytes (the patch's limit), and longer. */
const timestampDelta = fc.oneof(
  fc.bigInt({ min: -200n, max: 200n }),
  fc.bigInt({ min: -(2n ** 48n), max: 2n ** 48n - 1n }),
  fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }),
);

/** The body of a record as the broker sends it (kafkajs's batch decoder strips the length). */
const recordBody = (record: Parameters<typeof encodeRecord>[0]): Buffer =>
  new Decoder(encodeRecord(record).buffer).readVarIntBytes()!;

const roundTrip = (record: Parameters<typeof encodeRecord>[0], context: BatchContext): DecodedRecord =>
  decodeRecord(new Decoder(recordBody(record)), context);

describe('kafkajs patch: record offsets and timestamps without a Long per record', () => {
  it('is applied to the installed kafkajs (npm install runs patch-package)', () => {
    expect(fs.readFileSync(require.resolve(RECORD_DECODER), 'utf8')).toContain('readShortVarLong');
  });

  it('decodes every record as the unpatched Long arithmetic does', () => {
    fc.assert(
      fc.property(
        int64,
        int64,
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 31 - 1 }), timestampDelta), {
          minLength: 1,
          maxLength: 5,
        }),
        (firstOffset, firstTimestamp, records) => {
          const context: BatchContext = {
            firstOffset: String(firstOffset),
            firstTimestamp: String(firstTimestamp),
            maxTimestamp: String(firstTimestamp),
            timestampType: 0,
            magicByte: 2,
            isControlBatch: false,
          };
          for (const [offsetDelta, delta] of records) {
            const body = recordBody({
              offsetDelta,
              timestampDelta: delta,
              key: null,
              value: Buffer.from(`v${offsetDelta}`),
              headers: { h: Buffer.from('x') },
            });
            const { headers, ...decoded } = decodeRecord(new Decoder(body), context);
            expect(decoded).toMatchObject(referenceDecode(new Decoder(body), context));
            expect(headers).toEqual({ h: Buffer.from('x') });
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('keeps the log-append time of the batch as every record’s timestamp', () => {
    const decoded = roundTrip(
      { offsetDelta: 3, timestampDelta: 5n, key: Buffer.from('k'), value: Buffer.from('v') },
      {
        firstOffset: '10',
        firstTimestamp: '1000',
        maxTimestamp: '2000',
        timestampType: 1,
        magicByte: 2,
        isControlBatch: false,
      },
    );
    expect([decoded.offset, decoded.timestamp, String(decoded.key)]).toEqual(['13', '2000', 'k']);
  });

  it('decodes a batch’s records, plain or compressed, as they were encoded (property)', async () => {
    const bytes = fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a));
    const headers: fc.Arbitrary<Headers> = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 6 }),
      fc.oneof(bytes, fc.array(bytes, { minLength: 2, maxLength: 3 })),
      { maxKeys: 3 },
    );
    const record = fc.record({ key: fc.option(bytes), value: bytes, headers });
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { minLength: 1, maxLength: 30 }),
        fc.constantFrom(Compression.None, Compression.GZIP),
        async (records, compression) => {
          const input: BatchRecord[] = records.map((r, i) => ({
            ...r,
            offsetDelta: i,
            timestampDelta: i * 7,
          }));
          const encoded = await encodeBatch({
            compression,
            firstOffset: Long.fromValue('1000'),
            firstTimestamp: 1_764_000_000_000,
            maxTimestamp: 1_764_000_000_000 + input.length * 7,
            lastOffsetDelta: input.length - 1,
            records: input.map((r) => encodeRecord({ ...r, timestampDelta: BigInt(r.timestampDelta) })),
          });
          const { records: decoded } = await decodeBatch(new Decoder(encoded.buffer));
          expect(
            decoded.map(({ offset, timestamp, key, value, headers }) => ({
              offset,
              timestamp,
              key,
              value,
              headers,
            })),
          ).toEqual(
            input.map((r) => ({
              offset: String(1000 + r.offsetDelta),
              timestamp: String(1_764_000_000_000 + r.timestampDelta),
              key: r.key,
              value: r.value,
              headers: r.headers,
            })),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps exactly the fetched batch’s messages at or after the fetched offset', () => {
    fc.assert(
      fc.property(int64, fc.array(int64, { maxLength: 20 }), (fetched, offsets) => {
        const messages = offsets.map((offset) => ({ offset: String(offset), isControlRecord: false }));
        const batch = new Batch('t', String(fetched), {
          partition: 0,
          highWatermark: '0',
          messages,
          abortedTransactions: [],
        });
        expect(batch.messages.map((m) => m.offset)).toEqual(
          offsets.filter((offset) => offset >= fetched).map(String),
        );
      }),
      { numRuns: 2_000 },
    );
  });
});
