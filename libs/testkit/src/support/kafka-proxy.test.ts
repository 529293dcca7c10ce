// The proxy's address rewrite: a Metadata or FindCoordinator response names the proxy instead of
// the broker behind it, and kafkajs's own decoders read the rewritten frames.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { API_KEYS, rewriteBrokerAddresses } from './kafka-proxy';

const require = createRequire(import.meta.url);
type Decode = (payload: Buffer) => Promise<Record<string, unknown>>;
const decoder = (path: string): Decode =>
  (require(`kafkajs/src/protocol/requests/${path}/response`) as { decode: Decode }).decode;

const int16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const str = (s: string | null) =>
  s === null ? int16(-1) : Buffer.concat([int16(Buffer.byteLength(s)), Buffer.from(s)]);
const array = (items: Buffer[]) => Buffer.concat([int32(items.length), ...items]);

const CORRELATION = 77;
/** Metadata v6: two brokers, one topic with one partition. */
const metadataV6 = Buffer.concat([
  int32(CORRELATION),
  int32(0), // throttle_time_ms
  array([
    Buffer.concat([int32(1), str('kafka-1.internal'), int32(9092), str(null)]),
    Buffer.concat([int32(2), str('k2'), int32(9093), str('rack-b')]),
  ]),
  str('cluster-x'),
  int32(1), // controller_id
  array([
    Buffer.concat([
      int16(0),
      str('events'),
      Buffer.from([0]), // is_internal
      array([Buffer.concat([int16(0), int32(0), int32(2), array([int32(2)]), array([int32(2)]), array([])])]),
    ]),
  ]),
]);

const findCoordinator = (version: 0 | 1 | 2) =>
  Buffer.concat([
    int32(CORRELATION),
    ...(version >= 1 ? [int32(0)] : []),
    int16(0),
    ...(version >= 1 ? [str(null)] : []),
    int32(1),
    str('kafka-1.internal'),
    int32(9092),
  ]);

describe('rewriteBrokerAddresses', () => {
  it('puts the proxy in every broker of a Metadata response, the rest unchanged', async () => {
    const out = rewriteBrokerAddresses(
      metadataV6,
      { apiKey: API_KEYS.metadata, apiVersion: 6 },
      '127.0.0.1',
      41999,
    );
    expect(out.readInt32BE(0)).toBe(CORRELATION);
    const decoded = await decoder('metadata/v6')(out.subarray(4));
    expect(decoded).toMatchObject({
      brokers: [
        { nodeId: 1, host: '127.0.0.1', port: 41999, rack: null },
        { nodeId: 2, host: '127.0.0.1', port: 41999, rack: 'rack-b' },
      ],
      clusterId: 'cluster-x',
      controllerId: 1,
      topicMetadata: [
        { topic: 'events', partitionMetadata: [{ partitionId: 0, leader: 2, replicas: [2], isr: [2] }] },
      ],
    });
  });

  it.each([0, 1, 2] as const)('puts the proxy in a FindCoordinator v%i response', async (version) => {
    const out = rewriteBrokerAddresses(
      findCoordinator(version),
      { apiKey: API_KEYS.findCoordinator, apiVersion: version },
      '127.0.0.1',
      41999,
    );
    const decoded = await decoder(`findCoordinator/v${version}`)(out.subarray(4));
    expect(decoded).toMatchObject({
      errorCode: 0,
      coordinator: { nodeId: 1, host: '127.0.0.1', port: 41999 },
    });
  });

  it('leaves other responses alone', () => {
    const frame = Buffer.concat([int32(CORRELATION), str('kafka-1.internal'), int32(9092)]);
    expect(rewriteBrokerAddresses(frame, { apiKey: API_KEYS.produce, apiVersion: 7 }, 'h', 1)).toBe(frame);
  });
});
