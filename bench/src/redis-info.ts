/**
 * What the bench reads from Redis about Redis itself: INFO sections, per-command statistics and
 * the slow log. CONFIG RESETSTAT and SLOWLOG RESET are only ever sent to the bench's own server
 * (servers.ts), so that each phase's statistics are its own.
 */
import type { Redis } from 'ioredis';
import { scriptNamesBySha } from '@va/store';

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

/**
 * The threshold the bench sets on its own Redis: the store's bound on one call is ~5 ms (docs/store-v2.md),
 * Redis's default (10 ms) would hide calls between the two.
 */
export const SLOW_LOG_USEC = 5_000;
/** Entries Redis keeps (default 128, which a slow phase can fill). */
const SLOW_LOG_MAX_LEN = 4_096;

export interface SlowLog {
  /** Commands over SLOW_LOG_USEC during the phase (up to SLOW_LOG_MAX_LEN). */
  total: number;
  slowest: SlowEntry[];
  /** The slowest Lua call (EVALSHA), its script named, and the slowest other command. */
  slowestScript?: SlowEntry;
  slowestPlain?: SlowEntry;
}

/**
 * The phase's slow log, slowest first. Scripts are named (applyApiBatch, not its SHA). The slowest
 * plain command tells what the log measures: the time a command took on Redis's thread, which
 * includes any time the OS gave that thread's core to another process (a one-field HINCRBY over
 * 10 ms is such a stall, not work).
 */
export async function slowLog(redis: Redis, count = 10): Promise<SlowLog> {
  const raw = (await redis.call('SLOWLOG', 'GET', '-1')) as [number, number, number, string[]][];
  const names = scriptNamesBySha();
  const entries = raw
    .map(([, , usec, args]) => {
      const verb = (args[0] ?? '').toLowerCase();
      const name = verb === 'evalsha' ? names.get(String(args[1]).toLowerCase()) : undefined;
      const shown = name === undefined ? args.slice(0, 3) : [`${name} (script)`, ...args.slice(2, 3)];
      return {
        usec: Number(usec),
        command: shown.join(' ').slice(0, 120),
        script: verb === 'eval' || verb === 'evalsha',
      };
    })
    .sort((a, b) => b.usec - a.usec);
  const plain = ({ usec, command }: { usec: number; command: string }): SlowEntry => ({ usec, command });
  const script = entries.find((e) => e.script);
  const other = entries.find((e) => !e.script);
  return {
    total: entries.length,
    slowest: entries.slice(0, count).map(plain),
    ...(script ? { slowestScript: plain(script) } : {}),
    ...(other ? { slowestPlain: plain(other) } : {}),
  };
}

/** Starts a phase's statistics from zero (the bench's own Redis only). */
export async function resetStats(redis: Redis): Promise<void> {
  await redis.call('CONFIG', 'RESETSTAT');
  await redis.call('CONFIG', 'SET', 'slowlog-log-slower-than', String(SLOW_LOG_USEC));
  await redis.call('CONFIG', 'SET', 'slowlog-max-len', String(SLOW_LOG_MAX_LEN));
  await redis.call('SLOWLOG', 'RESET');
}

/**
 * What Redis received, from INFO stats: `reads` (total_reads_processed) counts the reads Redis made on
 * client sockets, one per round trip of a client (a pipeline or a script call sent at once is one read,
 * unless it is too large for one), `commands` (total_commands_processed) every command run, the calls
 * a Lua script makes included.
 */
export interface RedisTraffic {
  reads: number;
  commands: number;
}

export async function redisTraffic(redis: Redis): Promise<RedisTraffic> {
  const stats = await info(redis, 'stats');
  return { reads: Number(stats.total_reads_processed), commands: Number(stats.total_commands_processed) };
}

/**
 * The traffic between two redisTraffic calls of the same client, without those calls: the second INFO's
 * read is counted in its own figures, the first INFO's command in the second's.
 */
export const trafficBetween = (before: RedisTraffic, after: RedisTraffic): RedisTraffic => ({
  reads: Math.max(0, after.reads - before.reads - 1),
  commands: Math.max(0, after.commands - before.commands - 1),
});
