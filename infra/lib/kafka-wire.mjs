// Just enough of the Kafka wire protocol (Metadata v1, CreateTopics v2; non-flexible versions every broker
// since 2.0 and through 4.x speaks) for the stack scripts to check readiness and create topics with nothing
// but Node built-ins: they run before `npm install`, so kafkajs may not be there yet.
import net from 'node:net';

const API_METADATA = 3;
const API_CREATE_TOPICS = 19;
const CLIENT_ID = 'va-infra';
export const TOPIC_ALREADY_EXISTS = 36;

class Writer {
  parts = [];
  int8(v) {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    this.parts.push(b);
    return this;
  }
  int16(v) {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    this.parts.push(b);
    return this;
  }
  int32(v) {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.parts.push(b);
    return this;
  }
  string(s) {
    if (s === null) return this.int16(-1);
    const bytes = Buffer.from(s, 'utf8');
    this.int16(bytes.length);
    this.parts.push(bytes);
    return this;
  }
  array(items, writeItem) {
    if (items === null) return this.int32(-1);
    this.int32(items.length);
    for (const item of items) writeItem(this, item);
    return this;
  }
  buffer() {
    return Buffer.concat(this.parts);
  }
}

class Reader {
  offset = 0;
  constructor(buf) {
    this.buf = buf;
  }
  int8() {
    return this.buf.readInt8((this.offset += 1) - 1);
  }
  int16() {
    return this.buf.readInt16BE((this.offset += 2) - 2);
  }
  int32() {
    return this.buf.readInt32BE((this.offset += 4) - 4);
  }
  string() {
    const length = this.int16();
    if (length < 0) return null;
    const s = this.buf.toString('utf8', this.offset, this.offset + length);
    this.offset += length;
    return s;
  }
  array(readItem) {
    const length = this.int32();
    const items = [];
    for (let i = 0; i < length; i++) items.push(readItem(this));
    return items;
  }
}

/** Sends one request (header v1) and resolves with the response body (after the v0 response header). */
function request({ host, port }, apiKey, apiVersion, body, timeoutMs = 10_000) {
  const correlationId = Math.floor(Math.random() * 0x7fffffff);
  const header = new Writer().int16(apiKey).int16(apiVersion).int32(correlationId).string(CLIENT_ID).buffer();
  const payload = Buffer.concat([header, body]);
  const frame = Buffer.concat([new Writer().int32(payload.length).buffer(), payload]);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let received = Buffer.alloc(0);
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`kafka ${host}:${port}: request timed out`)));
    socket.once('error', reject);
    socket.once('connect', () => socket.write(frame));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4 || received.length < 4 + received.readInt32BE(0)) return;
      socket.end();
      const response = received.subarray(4, 4 + received.readInt32BE(0));
      if (response.readInt32BE(0) !== correlationId) reject(new Error('kafka: correlation id mismatch'));
      else resolve(response.subarray(4));
    });
    socket.once('close', () =>
      reject(new Error(`kafka ${host}:${port}: connection closed before a response`)),
    );
  });
}

export function parseBroker(address) {
  const [host, port] = address.trim().split(':');
  return { host: host || '127.0.0.1', port: Number(port || 9092) };
}

/** Brokers and topics (name -> partition count) as the broker sees them. */
export async function fetchMetadata(broker) {
  const body = await request(broker, API_METADATA, 1, new Writer().array(null).buffer());
  const r = new Reader(body);
  const brokers = r.array((x) => {
    const node = { nodeId: x.int32(), host: x.string(), port: x.int32() };
    x.string(); // rack
    return node;
  });
  const controllerId = r.int32();
  const topics = new Map();
  r.array((x) => {
    const errorCode = x.int16();
    const name = x.string();
    x.int8(); // is_internal
    const partitions = x.array((p) => {
      p.int16();
      p.int32();
      p.int32();
      p.array((q) => q.int32());
      p.array((q) => q.int32());
    });
    if (errorCode === 0) topics.set(name, partitions.length);
  });
  return { brokers, controllerId, topics };
}

/**
 * Creates topics; one that exists already is left as it is and reported as existing.
 * topics: [{ name, partitions, replicationFactor, configs: { key: value } }]
 */
export async function createTopics(broker, topics, timeoutMs = 30_000) {
  const body = new Writer()
    .array(topics, (w, t) =>
      w
        .string(t.name)
        .int32(t.partitions)
        .int16(t.replicationFactor ?? 1)
        .array([], () => {})
        .array(Object.entries(t.configs ?? {}), (c, [key, value]) => c.string(key).string(String(value))),
    )
    .int32(timeoutMs)
    .int8(0)
    .buffer();
  const r = new Reader(await request(broker, API_CREATE_TOPICS, 2, body, timeoutMs + 5_000));
  r.int32(); // throttle_time_ms
  return r.array((x) => ({ name: x.string(), errorCode: x.int16(), errorMessage: x.string() }));
}
