/**
 * The calibration row: what one HTTP round trip costs on this machine in this run. A bare node:http
 * server, in a process of its own like the services, answers a keep-alive GET with a small JSON body;
 * the same load tool (cannon.ts, with the same rotating bearer header) times it at 1 connection. Every
 * query scenario's p50 is also reported as a multiple of this p50: the part of a query's latency the
 * service can still win is above it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cannon, type CannonRun } from './cannon';

/** The server: port 0, prints the port it got, answers every request the same. */
const BARE_SERVER = `
import http from 'node:http';
const body = JSON.stringify([{ time: 0, valid: 1, total: 1 }]);
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

export async function bareRoundTrip(seconds: number, bearer: readonly string[]): Promise<CannonRun> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', BARE_SERVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const url = `http://127.0.0.1:${Number(chunk.toString().trim())}/`;
    for (let n = 0; n < 200; n++) await (await fetch(url)).text(); // warm-up, as for the scenarios
    return await cannon({ url, connections: 1, seconds, bearer });
  } finally {
    child.kill('SIGTERM');
  }
}
