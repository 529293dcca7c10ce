/**
 * `compaction status [--api <apiId>] [--json]`: per API, the last compacted hour and how many
 * closed hours with data wait for the compactor; and the compaction queue's BullMQ job counts.
 */
import { parseArgs } from 'node:util';
import { IDENTIFIER_PATTERN } from '@va/contracts';
import { clockOf } from '@va/config';
import { compactionQueueCounts } from '@va/compactor';
import { closedBoundAt, hourStart } from '@va/core';
import { compactionStatus, globalKeys, readGeneration } from '@va/store';
import { withRedis } from './with-redis';

export const usage = [
  '  compaction status [--api <apiId>] [--json]',
  '      per API: last compacted hour, closed hours waiting; and the compaction queue counts',
].join('\n');

const identifier = new RegExp(IDENTIFIER_PATTERN);

function fail(message: string): number {
  process.stderr.write(`compaction: ${message}\n${usage}\n`);
  return 2;
}

const iso = (hour: number | null) => (hour === null ? 'never' : new Date(hourStart(hour)).toISOString());

async function status(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { api: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) return fail(`unexpected argument ${positionals[0]}`);
  if (values.api !== undefined && !identifier.test(values.api)) return fail('--api takes an identifier');

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

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'status') return await status(rest);
  } catch (err) {
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      return fail(err.message);
    }
    throw err;
  }
  return fail(sub === undefined ? 'missing subcommand' : `unknown subcommand ${sub}`);
}
