/**
 * `rebuild`, `rebuild status`, `rebuild abort`, `rebuild resume`: recount every counter from the Kafka topics into a new generation
 * while queries keep reading the current one, then switch atomically (docs/rebuild.md, README
 * "Operations"). The work is in ../rebuild/; this file wires the clients (options:
 * ../program/rebuild.ts).
 */
import { hostname } from 'node:os';
import { clockOf, loadConfig } from '@va/config';
import { connectRedis, describeTarget } from '@va/store';
import { beginRebuild } from '../rebuild/begin';
import { abortRebuild, rebuildStatus, resumeRebuild } from '../rebuild/control';
import type { RebuildDeps } from '../rebuild/deps';
import { parseSince } from '../rebuild/plan';
import { cliKafka } from '../ops/kafka';
import { UsageError } from '../usage-error';

async function withDeps(action: (deps: RebuildDeps) => Promise<number>, json = false): Promise<number> {
  // The replaying worker logs only errors unless LOG_LEVEL is set: the CLI's own output is on stdout.
  const config = loadConfig(process.env, { LOG_LEVEL: 'error' });
  const redis = connectRedis(config, { lazyConnect: true, maxRetriesPerRequest: 3 });
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => (lastError = err));
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`cannot reach ${describeTarget(config)}: ${(lastError ?? (err as Error)).message}`);
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
      json,
    });
  } finally {
    redis.disconnect();
  }
}

export interface RebuildOptions {
  /** ISO date or unix ms: only from that month on; older periods are carried over. */
  since?: string | undefined;
  /** Skip the confirmation. */
  yes: boolean;
  /** Progress as JSON lines. */
  json?: boolean;
}

export async function rebuildCommand(options: RebuildOptions): Promise<number> {
  let since: number | null = null;
  if (options.since !== undefined) {
    const parsed = parseSince(options.since, clockOf(loadConfig())());
    if (typeof parsed === 'string') throw new UsageError(parsed);
    since = parsed;
  }
  return withDeps((deps) => beginRebuild(deps, { since, yes: options.yes }), options.json === true);
}

export const rebuildStatusCommand = (options: { json: boolean }): Promise<number> =>
  withDeps((deps) => rebuildStatus(deps, options.json));

export const rebuildAbortCommand = (): Promise<number> => withDeps(abortRebuild);

export const rebuildResumeCommand = (options: { force: boolean; json?: boolean }): Promise<number> =>
  withDeps((deps) => resumeRebuild(deps, options.force), options.json === true);
