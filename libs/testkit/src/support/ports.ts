import net from 'node:net';

/** Ports freePort handed out in this process: the OS may offer a just-closed port again at once. */
const given = new Set<number>();

/**
 * A TCP port that was free a moment ago (the OS picked it) and that this process was not given
 * before: three calls in a row (one test's service ports) get three different ports. Good enough
 * for tests on one machine.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await osFreePort();
    if (given.has(port)) continue;
    given.add(port);
    return port;
  }
}

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('freePort: no address'));
      });
    });
  });
}

/** Whether something accepts TCP connections on host:port. */
export function portOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
