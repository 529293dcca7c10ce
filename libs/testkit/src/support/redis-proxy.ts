/**
 * Test helper: a TCP proxy in front of Redis that delays every reply and records every command
 * the client sends (RESP arrays, with the time they passed), so that a test can see which
 * commands a request made and that none were made after a given moment.
 */
import net from 'node:net';

export interface SentCommand {
  at: number;
  /** The command's arguments (bulk strings), e.g. ['EVALSHA', sha, '3', key, ...]. */
  args: string[];
}

export interface RedisProxy {
  url: string;
  sent: SentCommand[];
  /**
   * Set: every reply waits (after the delay) until this has run, replies in order. A test makes
   * something happen between a command and its reply this way, whatever the machine's speed; a
   * fixed delay alone only gives it the delay's time. An error it throws lands in `hookErrors`.
   */
  beforeReply: (() => Promise<void>) | undefined;
  hookErrors: unknown[];
  close(): Promise<void>;
}

/** Parses complete RESP command arrays off the front of `buffer`; returns the rest. */
function parseCommands(buffer: Buffer, at: number, out: SentCommand[]): Buffer {
  let pos = 0;
  for (;;) {
    const start = pos;
    const line = (from: number): [string, number] | undefined => {
      const end = buffer.indexOf('\r\n', from);
      return end < 0 ? undefined : [buffer.toString('latin1', from, end), end + 2];
    };
    const header = line(pos);
    if (!header || !header[0].startsWith('*')) return buffer.subarray(start);
    const count = Number(header[0].slice(1));
    pos = header[1];
    const args: string[] = [];
    for (let n = 0; n < count; n++) {
      const size = line(pos);
      if (!size) return buffer.subarray(start);
      const length = Number(size[0].slice(1));
      if (buffer.length < size[1] + length + 2) return buffer.subarray(start);
      args.push(buffer.toString('utf8', size[1], size[1] + length));
      pos = size[1] + length + 2;
    }
    out.push({ at, args });
  }
}

export async function startRedisProxy(target: string, replyDelayMs: number): Promise<RedisProxy> {
  const { hostname, port } = new URL(target);
  const sent: SentCommand[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let pending: Buffer = Buffer.alloc(0);
    // With a hook, replies go through one chain per connection so that they keep their order.
    let replies = Promise.resolve();
    client.on('data', (chunk) => {
      pending = parseCommands(Buffer.concat([pending, chunk]), Date.now(), sent);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      const write = (): void => {
        if (client.writable) client.write(chunk);
      };
      const hook = proxy.beforeReply;
      if (hook === undefined) {
        setTimeout(write, replyDelayMs);
        return;
      }
      const delayed = new Promise((resolve) => setTimeout(resolve, replyDelayMs));
      replies = replies
        .then(() => delayed)
        .then(hook)
        .catch((error: unknown) => void proxy.hookErrors.push(error))
        .then(write);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  const proxy: RedisProxy = {
    url: `redis://127.0.0.1:${address.port}`,
    sent,
    beforeReply: undefined,
    hookErrors: [],
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
