/**
 * A worker thread of the read pool (read-pool.ts): answers heavy queries off the main thread,
 * with its own Redis connection, dictionary cache and section cache, and hands back the rows as
 * JSON bytes, compressed as the client accepts (moved, not copied), so that the main thread only
 * sends them, with its section cache's figures (the main thread's metrics add them up).
 */
import { threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import type { Config } from '@va/config';
import type { ParsedQuery, Precision, XPrecision } from '@va/core';
import {
  connectRedis,
  defineCommands,
  SectionCache,
  type KeySpace,
  type RedisTarget,
  type CacheUse,
  type SectionCacheStats,
} from '@va/store';
import { ApiError, RowCapError } from '../http/api-error';
import { compressBytes, type Encoding } from '../http/compression';
import { jsonBytes } from '../http/json-body';
import { DictionaryCache } from './dictionary-cache';
import { readAnswerJson } from './read-answer';
import { lowerThisThreadPriority } from './worker-priority';

export interface WorkerSetup {
  redis: RedisTarget;
  config: Pick<Config, 'keyPrefix' | 'maxRows' | 'retention' | 'queryMaxCost'>;
  /** Bytes of this worker's section cache. */
  sectionCacheBytes: number;
}

export interface ReadTask {
  space: KeySpace;
  query: ParsedQuery;
  now: number;
  /** What is left of the request's time budget (ms). */
  budgetMs: number;
  /** The response's Content-Encoding (negotiated by the main thread), or null for none. */
  encoding: Encoding | null;
}

/** The worker's section cache as the task left it (cumulative), by thread. */
export interface WorkerSections {
  thread: number;
  stats: SectionCacheStats;
}

/** `json` is the answer's JSON, compressed when `encoding` is set. */
export type ReadResult = (
  | {
      ok: true;
      json: Uint8Array;
      encoding: Encoding | null;
      precision: Precision;
      /** The header X-Precision (read-answer.ts JsonAnswer). */
      xPrecision: XPrecision | null;
    }
  | { ok: false; error: Pick<ApiError, 'kind' | 'detail' | 'errors'>; rowCap: boolean }
) & {
  sections: WorkerSections;
  /** What this task's reads used of the worker's section cache (a worker runs one task at a time). */
  cacheUse: CacheUse;
};

lowerThisThreadPriority();
const setup = workerData as WorkerSetup;
const redis = connectRedis(setup.redis, { maxRetriesPerRequest: 2, connectionName: 'va-query-worker' });
defineCommands(redis);
const sections = new SectionCache(setup.sectionCacheBytes);
const deps = {
  redis,
  config: setup.config,
  now: Date.now,
  dictionaries: new DictionaryCache(redis),
  sections,
};
const sectionsNow = (): WorkerSections => ({ thread: threadId, stats: sections.stats() });
/** What countingStore counts as hits: sections, and months, days and minute hours checked once. */
const hitsOf = (s: SectionCacheStats): number => s.hits + s.monthHits + s.dayHits + s.minuteHourHits;
const usedSince = (before: SectionCacheStats, after: SectionCacheStats): CacheUse => ({
  hits: hitsOf(after) - hitsOf(before),
  misses: after.misses - before.misses,
});

export default async function read(task: ReadTask): Promise<ReadResult> {
  const before = sections.stats();
  try {
    const answer = await readAnswerJson(
      deps,
      task.space,
      task.query,
      task.now,
      AbortSignal.timeout(Math.ceil(task.budgetMs)),
      // The main thread refused what costs too much before handing the task over (refuseEarly).
      { costChecked: true },
    );
    const plain = jsonBytes(answer.rows);
    const packed = task.encoding ? compressBytes(plain, task.encoding) : null;
    const json = packed ? ownBuffer(packed) : plain;
    const result: ReadResult = {
      ok: true,
      json,
      encoding: packed ? task.encoding : null,
      precision: answer.precision,
      xPrecision: answer.xPrecision,
      sections: sectionsNow(),
      cacheUse: usedSince(before, sections.stats()),
    };
    // piscina's Transferable interface: the JSON's memory moves to the main thread, uncopied.
    return move({
      [transferableSymbol]: json.buffer,
      [valueSymbol]: result,
    } as never) as unknown as ReadResult;
  } catch (error) {
    if (error instanceof ApiError) {
      const { kind, detail, errors } = error;
      return {
        ok: false,
        error: { kind, detail, errors },
        rowCap: error instanceof RowCapError,
        sections: sectionsNow(),
        cacheUse: usedSince(before, sections.stats()),
      };
    }
    throw error;
  }
}

/** The bytes over an ArrayBuffer of their own (zlib may hand back a view into a larger or pooled one), so they can move. */
function ownBuffer(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}
