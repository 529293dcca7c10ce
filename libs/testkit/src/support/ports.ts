import net from 'node:net';

/** A TCP port that was free a moment ago (the OS picked it); good enough for tests on one machine. */
export function freePort(): Promise<number> {
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
