/** What every rebuild subcommand works with (commands/rebuild.ts builds it). */
import type { RedisClient } from '@va/store';
import type { Kafka } from 'kafkajs';
import type { Config } from '@va/config';

export interface RebuildDeps {
  config: Config;
  /** A client that reconnects: a rebuild runs for a long time. */
  redis: RedisClient;
  kafka: Kafka;
  /** One line of the command's output (stdout). */
  out: (line: string) => void;
  /** One line of trouble (stderr). */
  err: (line: string) => void;
  /** "<host>/<pid>": recorded in the state so that another shell can tell who runs it. */
  owner: string;
  /** Clock of the counters (FIXED_NOW_MS in tests). */
  now: () => number;
  /** --json: progress as JSON lines on stdout (ProgressView), also on a terminal. */
  json?: boolean;
}

/** The process running a rebuild refreshes its heartbeat this often... */
export const HEARTBEAT_MS = 1_000;
/** ...and is presumed dead when it has not for this long. */
export const STALE_MS = 10_000;

/** The topics a rebuild replays: the live one and the backfill one (both feed the counters). */
export const replayedTopics = (config: Config): string[] => [config.topic, config.backfillTopic];

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
