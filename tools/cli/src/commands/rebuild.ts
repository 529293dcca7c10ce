/**
 * `rebuild [--since <ISO | ms>] [--yes]`, `rebuild status [--json]`, `rebuild abort`,
 * `rebuild resume [--force]`: recount every counter from the Kafka topics into a new generation
 * while queries keep reading the current one, then switch atomically (docs/rebuild.md, README
 * "Operations"). The work is in ../rebuild/; this file parses arguments and wires the clients.
 */
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { clockOf, loadConfig } from '@va/config';
import { beginRebuild } from '../rebuild/begin';
import { abortRebuild, rebuildStatus, resumeRebuild } from '../rebuild/control';
import type { RebuildDeps } from '../rebuild/deps';
import { parseSince } from '../rebuild/plan';
import { cliKafka } from '../ops/kafka';

export const usage = [
  '  rebuild [--since <ISO date | unix ms>] [--yes]',
  '      recounts every counter from the live and backfill topics into a new generation, then switches to it;',
  '      --since: only from that month on, older periods are carried over (needed once Kafka deleted records)',
  '  rebuild status [--json] | rebuild abort | rebuild resume [--force]',
  '      progress per partition; drop the new generation; continue after a crash',
].join('\n');

class UsageError extends Error {}

function fail(message: string): number {
  process.stderr.write(`rebuild: ${message}\n${usage}\n`);
  return 2;
}

async function withDeps(action: (deps: RebuildDeps) => Promise<number>): Promise<number> {
  // The replaying worker logs only errors unless LOG_LEVEL is set: the CLI's own output is on stdout.
  const config = loadConfig(process.env, { LOG_LEVEL: 'error' });
  const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3 });
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => (lastError = err));
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${config.redisUrl}: ${(lastError ?? (err as Error)).message}`);
  }
  try {
    return await action({
      config,
      redis,
      kafka: cliKafka(config, 'va-cli-rebuild'),
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
      owner: `${hostname()}/${process.pid}`,
      now: clockOf(config),
    });
  } finally {
    redis.disconnect();
  }
}

function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>) {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  return values as Record<string, string | boolean | undefined>;
}

async function dispatch(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'status': {
      const v = parse(rest, { json: { type: 'boolean' } });
      return withDeps((deps) => rebuildStatus(deps, v.json === true));
    }
    case 'abort':
      parse(rest, {});
      return withDeps(abortRebuild);
    case 'resume': {
      const v = parse(rest, { force: { type: 'boolean' } });
      return withDeps((deps) => resumeRebuild(deps, v.force === true));
    }
    default: {
      const v = parse(args, { since: { type: 'string' }, yes: { type: 'boolean' } });
      const config = loadConfig();
      let since: number | null = null;
      if (typeof v.since === 'string') {
        const parsed = parseSince(v.since, clockOf(config)());
        if (typeof parsed === 'string') throw new UsageError(parsed);
        since = parsed;
      }
      return withDeps((deps) => beginRebuild(deps, { since, yes: v.yes === true }));
    }
  }
}

export async function run(args: string[]): Promise<number> {
  try {
    return await dispatch(args);
  } catch (err) {
    if (err instanceof UsageError) return fail(err.message);
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      return fail(err.message);
    }
    throw err;
  }
}
