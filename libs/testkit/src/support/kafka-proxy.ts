/**
 * A TCP proxy in front of one Kafka broker that can lose a response: the request reaches the
 * broker (and is applied there), the answer never reaches the client, and the connection closes.
 * That is what a network failure after the broker's append looks like to a producer, which then
 * retries the request on a new connection (a duplicate unless the producer is idempotent).
 *
 * Kafka clients connect to the address the broker advertises in its metadata, so the proxy must
 * be that address: start the broker with `advertisedPort` = the proxy's port (infra/kafka.mjs)
 * and give clients the proxy's address. Everything else is forwarded byte for byte; the proxy
 * only reads the frame headers (size, api key/version, correlation id, client id, and for
 * Produce requests the topic names) to know which response answers which request.
 */
import net from 'node:net';

/** Kafka API keys the proxy names (https://kafka.apache.org/protocol#protocol_api_keys). */
export const API_KEYS = { produce: 0, fetch: 1, metadata: 3 } as const;

export interface KafkaRequestInfo {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  /** Topic names of a Produce request (versions 3-8, the ones without flexible encoding); [] otherwise. */
  topics: string[];
}

export interface KafkaProxy {
  host: string;
  port: number;
  /** `host:port`, what clients use as their broker list. */
  address: string;
  /**
   * Arms the proxy: the next response to a request for which `match` is true is swallowed and both
   * sides of that connection are closed. Resolves with that request once it happened.
   */
  dropResponse(match: (request: KafkaRequestInfo) => boolean): Promise<KafkaRequestInfo>;
  /** Requests seen so far (all connections), for assertions and for arming after N of a kind. */
  readonly requests: readonly KafkaRequestInfo[];
  /** Responses swallowed so far. */
  readonly dropped: readonly KafkaRequestInfo[];
  close(): Promise<void>;
}

/** Reads one request header (and Produce topic names) from a complete frame (without its size). */
export function parseRequest(frame: Buffer): KafkaRequestInfo {
  const apiKey = frame.readInt16BE(0);
  const apiVersion = frame.readInt16BE(2);
  const correlationId = frame.readInt32BE(4);
  const clientIdLength = frame.readInt16BE(8);
  const clientId = clientIdLength < 0 ? null : frame.toString('utf8', 10, 10 + clientIdLength);
  const topics: string[] = [];
  if (apiKey === API_KEYS.produce && apiVersion >= 3 && apiVersion <= 8) {
    let at = 10 + Math.max(clientIdLength, 0);
    const transactionalIdLength = frame.readInt16BE(at);
    at += 2 + Math.max(transactionalIdLength, 0) + 2 + 4; // transactional id, acks, timeout
    const topicCount = frame.readInt32BE(at);
    at += 4;
    for (let t = 0; t < topicCount; t++) {
      const nameLength = frame.readInt16BE(at);
      topics.push(frame.toString('utf8', at + 2, at + 2 + nameLength));
      at += 2 + nameLength;
      const partitionCount = frame.readInt32BE(at);
      at += 4;
      for (let p = 0; p < partitionCount; p++) {
        const recordsLength = frame.readInt32BE(at + 4);
        at += 8 + Math.max(recordsLength, 0);
      }
    }
  }
  return { apiKey, apiVersion, correlationId, clientId, topics };
}

/** Splits a byte stream into size-prefixed Kafka frames (each returned without its 4-byte size). */
class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: Buffer[] = [];
    while (this.buffered.length >= 4) {
      const size = this.buffered.readInt32BE(0);
      if (this.buffered.length < 4 + size) break;
      frames.push(this.buffered.subarray(4, 4 + size));
      this.buffered = this.buffered.subarray(4 + size);
    }
    return frames;
  }
}

const withSize = (frame: Buffer): Buffer => {
  const size = Buffer.alloc(4);
  size.writeInt32BE(frame.length);
  return Buffer.concat([size, frame]);
};

export async function startKafkaProxy(options: {
  /** The broker's real listener. */
  target: { host: string; port: number };
  /** Where the proxy listens (the broker's advertised port); 0 = any free port. */
  port?: number;
  host?: string;
}): Promise<KafkaProxy> {
  const host = options.host ?? '127.0.0.1';
  const requests: KafkaRequestInfo[] = [];
  const dropped: KafkaRequestInfo[] = [];
  const sockets = new Set<net.Socket>();
  let armed: { match: (r: KafkaRequestInfo) => boolean; resolve: (r: KafkaRequestInfo) => void }[] = [];

  const server = net.createServer((client) => {
    const upstream = net.connect(options.target.port, options.target.host);
    sockets.add(client);
    sockets.add(upstream);
    const pending = new Map<number, KafkaRequestInfo>();
    const fromClient = new FrameReader();
    const fromBroker = new FrameReader();
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);

    client.on('data', (chunk: Buffer) => {
      for (const frame of fromClient.push(chunk)) {
        const request = parseRequest(frame);
        requests.push(request);
        pending.set(request.correlationId, request);
        upstream.write(withSize(frame));
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      for (const frame of fromBroker.push(chunk)) {
        const correlationId = frame.readInt32BE(0);
        const request = pending.get(correlationId);
        pending.delete(correlationId);
        const rule = request && armed.find((a) => a.match(request));
        if (request && rule) {
          armed = armed.filter((a) => a !== rule);
          dropped.push(request);
          closeBoth();
          rule.resolve(request);
          return;
        }
        client.write(withSize(frame));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('kafka proxy: no address');
  const port = address.port;

  return {
    host,
    port,
    address: `${host}:${port}`,
    requests,
    dropped,
    dropResponse: (match) => new Promise((resolve) => armed.push({ match, resolve })),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
