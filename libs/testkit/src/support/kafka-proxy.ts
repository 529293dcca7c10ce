/**
 * A TCP proxy in front of one Kafka broker that can lose a response: the request reaches the
 * broker (and is applied there), the answer never reaches the client, and the connection closes.
 * That is what a network failure after the broker's append looks like to a producer, which then
 * retries the request on a new connection (a duplicate unless the producer is idempotent).
 *
 * Kafka clients connect to the address the broker advertises in its metadata, so the proxy puts
 * its own address there: it rewrites the broker's host and port in Metadata (versions 0-8) and
 * FindCoordinator (0-2) responses, the non-flexible versions kafkajs speaks. Any single broker can
 * sit behind it (the test run's own, without a broker of the test's own); a broker that advertises
 * the proxy's port already (infra/kafka.mjs `advertisedPort`) works the same. Everything else is
 * forwarded byte for byte; the proxy only reads the frame headers (size, api key/version,
 * correlation id, client id, and for Produce requests the topic names) to know which response
 * answers which request.
 */
import net from 'node:net';

/** Kafka API keys the proxy names (https://kafka.apache.org/protocol#protocol_api_keys). */
export const API_KEYS = { produce: 0, fetch: 1, metadata: 3, findCoordinator: 10 } as const;

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

/** Skips a (nullable) STRING at `at`; returns the offset after it. */
const skipString = (frame: Buffer, at: number): number => at + 2 + Math.max(frame.readInt16BE(at), 0);

/** node_id INT32, host STRING, port INT32 at `at`, with host and port replaced. */
function broker(host: string, port: number, nodeId: number): Buffer {
  const out = Buffer.alloc(4 + 2 + Buffer.byteLength(host) + 4);
  out.writeInt32BE(nodeId, 0);
  out.writeInt16BE(Buffer.byteLength(host), 4);
  out.write(host, 6);
  out.writeInt32BE(port, out.length - 4);
  return out;
}

/**
 * A response frame (correlation id first) with every broker address in it replaced by
 * host:port, for the Metadata and FindCoordinator versions the proxy knows; others unchanged.
 */
export function rewriteBrokerAddresses(
  frame: Buffer,
  request: Pick<KafkaRequestInfo, 'apiKey' | 'apiVersion'>,
  host: string,
  port: number,
): Buffer {
  const { apiKey, apiVersion } = request;
  if (apiKey === API_KEYS.metadata && apiVersion <= 8) {
    let at = 4 + (apiVersion >= 3 ? 4 : 0); // correlation id, throttle_time_ms
    const count = frame.readInt32BE(at);
    at += 4;
    const parts: Buffer[] = [frame.subarray(0, at)];
    for (let n = 0; n < count; n++) {
      const nodeId = frame.readInt32BE(at);
      const end = skipString(frame, at + 4) + 4; // host, port
      const rackEnd = apiVersion >= 1 ? skipString(frame, end) : end;
      parts.push(broker(host, port, nodeId), frame.subarray(end, rackEnd));
      at = rackEnd;
    }
    parts.push(frame.subarray(at));
    return Buffer.concat(parts);
  }
  if (apiKey === API_KEYS.findCoordinator && apiVersion <= 2) {
    // throttle_time_ms, error_code, error_message (v1+), then the coordinator.
    const at = apiVersion >= 1 ? skipString(frame, 4 + 4 + 2) : 4 + 2;
    const nodeId = frame.readInt32BE(at);
    const end = skipString(frame, at + 4) + 4;
    return Buffer.concat([frame.subarray(0, at), broker(host, port, nodeId), frame.subarray(end)]);
  }
  return frame;
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

/** The one broker of a broker list (`host:port[,...]`), as a proxy target; throws for several. */
export function singleBroker(brokers: readonly string[]): { host: string; port: number } {
  if (brokers.length !== 1) throw new Error(`kafka proxy: one broker expected, got ${brokers.join(',')}`);
  const match = /^(.+):(\d+)$/.exec(brokers[0]!.trim());
  if (!match) throw new Error(`kafka proxy: not host:port: ${brokers[0]}`);
  return { host: match[1]!, port: Number(match[2]) };
}

export async function startKafkaProxy(options: {
  /** The broker's real listener. */
  target: { host: string; port: number };
  /** Where the proxy listens; 0 = any free port. */
  port?: number;
  host?: string;
}): Promise<KafkaProxy> {
  const host = options.host ?? '127.0.0.1';
  let port = 0; // known once listening, before the first connection
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
        client.write(withSize(request ? rewriteBrokerAddresses(frame, request, host, port) : frame));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('kafka proxy: no address');
  port = address.port;

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
