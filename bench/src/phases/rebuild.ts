/**
 * Rebuild: the operators' `rebuild --yes` of the data set, as an operator runs it (the compiled CLI,
 * `node tools/cli/dist/main.js`, with the services' environment), while the topics still hold every
 * event. The rate is the records replayed per second from the command's start (process spawn) to
 * the switch (its "switched" line), the "from start to switch"; the phases (copy, replay,
 * catch-up, switch, cleanup) are the CLI's own timings (tools/cli/src/rebuild/timings.ts, its --json
 * line). Redis CPU spans the same interval, up to the end of the cleanup.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Redis } from 'ioredis';
import { ROOT } from '@va/infra/paths';
import { log } from '../log';
import { redisCpuSeconds } from '../redis-info';

export interface RebuildResult {
  /** Records of the replayed topics (each one event). */
  events: number;
  /** From the command's start to its "switched" line (this process's clock). */
  seconds: number;
  eventsPerSecond: number;
  /** The CLI's phases, seconds: copy, replay, catchUp, switch, cleanup. */
  phases: Record<string, number>;
  redisCpuSeconds: number;
}

interface Timings {
  rebuild: 'timings';
  seconds: Record<string, number>;
  records: number;
}

export async function measureRebuild(target: {
  redis: Redis;
  env: Record<string, string>;
  logFile: string;
  timeoutMs: number;
}): Promise<RebuildResult> {
  const redisCpu0 = await redisCpuSeconds(target.redis);
  const log$ = fs.createWriteStream(target.logFile);
  const startedAt = Date.now();
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', 'tools/cli/dist/main.js', 'rebuild', '--yes', '--json'],
    { cwd: ROOT, env: target.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let switchedAt: number | undefined;
  let timings: Timings | undefined;
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    log$.write(chunk);
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('switched:')) switchedAt ??= Date.now();
      if (line.startsWith('{"rebuild":"timings"')) timings = JSON.parse(line) as Timings;
      if (line.startsWith('{"progress"')) {
        const p = JSON.parse(line) as { done: number; total: number; eventsPerSecond: number };
        log(`rebuild: ${p.done}/${p.total} replayed, ${p.eventsPerSecond} events/s`);
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => log$.write(chunk));
  const timer = setTimeout(() => child.kill('SIGINT'), target.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  log$.end();
  if (code !== 0 || switchedAt === undefined || timings === undefined) {
    throw new Error(
      `rebuild exited with ${code} (switched: ${switchedAt !== undefined}); see ${target.logFile}`,
    );
  }
  const seconds = (switchedAt - startedAt) / 1000;
  return {
    events: timings.records,
    seconds,
    eventsPerSecond: timings.records / seconds,
    phases: timings.seconds,
    redisCpuSeconds: (await redisCpuSeconds(target.redis)) - redisCpu0,
  };
}
