import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenerPid, localBrokerPid, processCpuSeconds } from './process-cpu';

describe('process CPU from /proc', () => {
  it('finds the process listening on a port, and none on a closed one', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      expect(listenerPid(port)).toBe(process.pid);
      expect(localBrokerPid(`127.0.0.1:${port}`)).toBe(process.pid);
      expect(localBrokerPid(`kafka.example:${port}`)).toBeUndefined();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(listenerPid(port)).toBeUndefined();
  });

  it("reads a process's CPU seconds, which grow with work", () => {
    const before = processCpuSeconds(process.pid);
    const until = Date.now() + 150;
    let spin = 0;
    while (Date.now() < until) spin++;
    expect(spin).toBeGreaterThan(0);
    expect(processCpuSeconds(process.pid)).toBeGreaterThan(before);
    expect(processCpuSeconds(2 ** 30)).toBeNaN();
  });
});
