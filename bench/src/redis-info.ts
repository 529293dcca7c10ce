/**
 * What the bench reads from Redis about Redis itself: INFO sections, per-command statistics and
 * the slow log. CONFIG RESETSTAT and SLOWLOG RESET are only ever sent to the bench's own server
 * (servers.ts), so that each phase's statistics are its own.
 */
import type { Redis } from 'ioredis';

export function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) out[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return out;
}

export async function info(redis: Redis, section: string): Promise<Record<string, string>> {
  return parseInfo(await redis.info(section));
}

export async function usedMemory(redis: Redis): Promise<number> {
  return Number((await info(redis, 'memory')).used_memory);
}

/** CPU seconds Redis used so far (user + system, main thread and children). */
export async function redisCpuSeconds(redis: Redis): Promise<number> {
  const cpu = await info(redis, 'cpu');
  return Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys);
}

export interface CommandStat {
  command: string;
  calls: number;
  /** Total microseconds spent inside Redis. */
  usec: number;
  usecPerCall: number;
}

/** Commands by time spent, most first. */
export async function commandStats(redis: Redis, top = 8): Promise<CommandStat[]> {
  const stats = Object.entries(await info(redis, 'commandstats')).map(([name, value]) => {
    const fields = Object.fromEntries(value.split(',').map((kv) => kv.split('=') as [string, string]));
    return {
      command: name.replace(/^cmdstat_/, ''),
      calls: Number(fields.calls),
      usec: Number(fields.usec),
      usecPerCall: Number(fields.usec_per_call),
    };
  });
  return stats.sort((a, b) => b.usec - a.usec).slice(0, top);
}

export interface SlowEntry {
  usec: number;
  command: string;
}

/** The slow log (commands over slowlog-log-slower-than, 10 ms by default), slowest first. */
export async function slowLog(redis: Redis, count = 10): Promise<{ total: number; slowest: SlowEntry[] }> {
  const total = Number(await redis.call('SLOWLOG', 'LEN'));
  const raw = (await redis.call('SLOWLOG', 'GET', String(count))) as [number, number, number, string[]][];
  const slowest = raw
    .map(([, , usec, args]) => ({ usec: Number(usec), command: args.slice(0, 3).join(' ').slice(0, 120) }))
    .sort((a, b) => b.usec - a.usec);
  return { total, slowest };
}

/** Starts a phase's statistics from zero (the bench's own Redis only). */
export async function resetStats(redis: Redis): Promise<void> {
  await redis.call('CONFIG', 'RESETSTAT');
  await redis.call('SLOWLOG', 'RESET');
}
