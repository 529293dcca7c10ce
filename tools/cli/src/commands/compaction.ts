/**
 * `compaction status`: per API, the last compacted hour and how many
 * closed hours with data wait for the compactor; and the compaction queue's BullMQ job counts. Options: ../program/compaction.ts.
 */
import { clockOf } from '@va/config';
import { compactionQueueCounts } from '@va/compactor';
import { closedBoundAt, hourStart } from '@va/core';
import { compactionStatus, globalKeys, readGeneration } from '@va/store';
import { withRedis } from './with-redis';

const iso = (hour: number | null) => (hour === null ? 'never' : new Date(hourStart(hour)).toISOString());

export interface CompactionStatusOptions {
  /** Only this API; all known APIs when undefined. */
  api?: string | undefined;
  json: boolean;
}

export async function compactionStatusCommand(values: CompactionStatusOptions): Promise<number> {
  const report = await withRedis(async (redis, config) => {
    const closedBound = closedBoundAt(clockOf(config)(), config.compactionGraceMs);
    const generation = await readGeneration(redis, config.keyPrefix);
    const apis =
      values.api !== undefined
        ? [values.api]
        : (await redis.smembers(globalKeys(config.keyPrefix).apis)).sort();
    const [perApi, queue] = await Promise.all([
      compactionStatus(redis, { prefix: config.keyPrefix, generation }, apis, closedBound),
      compactionQueueCounts(redis, config.keyPrefix),
    ]);
    return { generation, closedBound, queue, apis: perApi };
  });

  if (values.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  }
  const { queue } = report;
  const lines = [
    `generation ${report.generation}, closed through ${iso(report.closedBound)}`,
    `queue compaction: waiting ${queue.waiting}, active ${queue.active}, delayed ${queue.delayed}, failed ${queue.failed}`,
  ];
  const rows = report.apis.map((a) => [a.apiId, iso(a.compactedThrough), String(a.waitingHours)]);
  const header = ['api', 'compacted through', 'closed hours waiting'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  for (const row of [header, ...rows])
    lines.push(
      row
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    );
  if (rows.length === 0) lines.push('(no APIs known)');
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
