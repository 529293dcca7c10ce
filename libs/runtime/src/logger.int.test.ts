/**
 * The buffered log (logger.ts) in a real process: lines of a quiet process still go out without an exit,
 * every line goes out when it exits, and a fatal line comes after the lines before it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/buffered-logger.ts', import.meta.url));
const children: ReturnType<typeof spawn>[] = [];

function run(mode: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { n?: number; level: number; msg: string });
  return { child, exited, lines };
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe('createLogger with buffered lines (docs/deploy.md, the query service log)', () => {
  it('writes the line of a process that logs once and keeps running (the periodic flush)', async () => {
    const { lines } = run('stay');
    const deadline = Date.now() + 15_000;
    while (lines().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(lines()).toMatchObject([{ n: 0, msg: 'line', service: 'fixture' }]);
  });

  it('writes every line of a process that exits right after logging them', async () => {
    const { exited, lines } = run('exit');
    expect(await exited).toBe(0);
    expect(lines().map((l) => l.n)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
  });

  // The flake this once was in CI (lines 0–47 came last), made certain: pino's asynchronous destination had the
  // first 4 KB in flight on libuv's pool when the exit flush wrote the rest synchronously.
  it('writes every line in order when it exits while a write would wait for a busy thread pool', async () => {
    const { exited, lines } = run('exit-busy-pool', { UV_THREADPOOL_SIZE: '1' });
    expect(await exited).toBe(0);
    expect(lines().map((l) => l.n)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
  });

  it('writes the lines before a fatal error first, then the fatal line', async () => {
    const { exited, lines } = run('fatal');
    expect(await exited).toBe(1);
    expect(lines().map((l) => [l.level, l.msg])).toEqual([
      [30, 'line'],
      [30, 'line'],
      [30, 'line'],
      [60, 'start-up failed'],
    ]);
  });
});
