/**
 * Heavy queries are answered in a pool of worker threads (piscina), so that no request holds
 * the main event loop for long: reading and summing hundreds of thousands of counters,
 * building and serialising 100,000 rows take seconds of CPU, during which the main thread
 * keeps answering light queries, checks and limits. Light queries (few rows, a short range)
 * stay on the main thread: handing them to a worker would cost more than answering them.
 * When the time budget runs out, the task's worker is terminated (piscina aborts a running
 * task that way): its reads stop with it, and piscina starts a fresh worker.
 * Tasks start in the order they arrived (fifo-pool.ts says why piscina's own queue is not enough).
 */
import { availableParallelism } from 'node:os';
import { groupsUpperBound, sliceCount, type ParsedQuery } from '@va/core';
import { sumCacheStats, type KeySpace, type SectionCacheStats } from '@va/store';
import type { VerificationsDeps } from './deps';
import { cubeQueryOf, dictionariesOf } from './cube-query';
import { FifoPool } from './fifo-pool';
import { groupSources } from './read-plan';
import type { ReadResult, ReadTask, WorkerSetup } from './read-worker';

/**
 * Queries with at most this many rows (bounded from the dictionaries) over a short range stay on
 * the main thread. Reading, summing and writing a row there costs ~2.5 µs (18,000-20,000 rows
 * held the event loop 16-120 ms), so 2,000 rows stay within ~5 ms, under the 10 ms rule of
 * docs/query-isolation.md; more go to a worker, even though they then wait behind heavy ones.
 */
export const LIGHT_ROWS = 2_000;
const LIGHT_HOURS = 24 * 400;

export class ReadPool {
  private readonly pool: FifoPool<ReadTask, ReadResult>;
  /** Each worker's section cache as its last task reported it. */
  private readonly sections = new Map<number, SectionCacheStats>();

  constructor(threads: number, setup: WorkerSetup) {
    // Run from TypeScript sources (tsx, vitest) the worker loads them through tsx too.
    const typescript = import.meta.url.endsWith('.ts');
    this.pool = new FifoPool({
      filename: new URL(`./read-worker.${typescript ? 'ts' : 'js'}`, import.meta.url).href,
      threads,
      workerData: setup,
      ...(typescript && { execArgv: ['--import', 'tsx'] }),
    });
  }

  static threadsByDefault(): number {
    return Math.max(1, Math.min(4, availableParallelism() - 1));
  }

  async run(task: ReadTask, signal: AbortSignal): Promise<ReadResult> {
    const result = await this.pool.run(task, signal);
    this.sections.set(result.sections.thread, result.sections.stats);
    return result;
  }

  /** The workers' section caches together (as of each one's last task). */
  sectionCacheStats(): SectionCacheStats {
    return sumCacheStats(this.sections.values());
  }

  /** Heavy queries waiting for a free worker. */
  get waiting(): number {
    return this.pool.waiting;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/**
 * Where a query is answered: `light` on the main thread, `heavy` in the pool (a long range, or many
 * rows possible), `light-if-few` on the main thread unless its rows turn out many (readAnswerJson's
 * `lightRows`), then in the pool. The last is a query filtered by identity whose only bound on its
 * rows is a dictionary's size: one identity's keys and tag sets over a short range are few and cheap
 * to read (its rows of a section are found by binary search), but no dictionary says how few, and a
 * per-key daily breakdown of one customer's month is a dashboard's everyday question. Handing it to a
 * worker cost ~1 ms (measured in docs/benchmarks-history.md).
 */
export async function weighQuery(
  deps: VerificationsDeps,
  space: KeySpace,
  query: ParsedQuery,
  /** performance.now() when the request arrived (ReadDictionaries.load's `since`). */
  arrived?: number,
): Promise<'light' | 'heavy' | 'light-if-few'> {
  if (query.startHour === undefined || query.endHour - query.startHour + 1 > LIGHT_HOURS) return 'heavy';
  const dicts = deps.dictionaries.get(space, query.apiId);
  await dicts.load(dictionariesOf(query), arrived === undefined ? {} : { since: arrived });
  const groups = groupsUpperBound(query.groupBy, groupSources(cubeQueryOf(query, dicts), dicts, query));
  const g = query.groupBy.granularity;
  const slices = g ? sliceCount(query.startHour, query.endHour, g, query.timeZone) : 1;
  if (groups * slices <= LIGHT_ROWS) return 'light';
  return query.externalId !== undefined && slices <= LIGHT_ROWS ? 'light-if-few' : 'heavy';
}

/** Whether a query goes to the pool whatever its rows (weighQuery: anything but `light`). */
export async function isHeavy(
  deps: VerificationsDeps,
  space: KeySpace,
  query: ParsedQuery,
  arrived?: number,
): Promise<boolean> {
  return (await weighQuery(deps, space, query, arrived)) !== 'light';
}
