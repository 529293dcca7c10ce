/** The machine a result was measured on: the figures mean nothing without it. */
import os from 'node:os';
import type { Redis } from 'ioredis';
import { info } from './redis-info';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  platform: string;
  node: string;
  redis: string;
}

export async function machineInfo(redis: Redis): Promise<MachineInfo> {
  const cpus = os.cpus();
  return {
    cpus: os.availableParallelism(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    redis: (await info(redis, 'server')).redis_version ?? 'unknown',
  };
}

/** 1, 5 and 15 minute load averages, two decimals. Other engineers share the machine: note it per phase. */
export const loadAverage = (): [number, number, number] =>
  os.loadavg().map((l) => Math.round(l * 100) / 100) as [number, number, number];
