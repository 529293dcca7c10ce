/**
 * `npm run bench`: loads the "medium tenant" data set through Kafka and measures ingest throughput,
 * compaction catch-up, Redis memory, query latency and freshness, each against the real service
 * processes. Results: bench/results/latest.json and latest.md (also printed). docs/benchmarks.md
 * describes the method; `npm run bench -- --help` the options.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { CACHE_DIR, ROOT } from '@va/infra/paths';
import { log } from './log';
import { loadAverage, machineInfo } from './machine';
import { parseOptions, USAGE, UsageError, type BenchOptions } from './options';
import { markdownReport } from './report';
import type { BenchResults } from './results';
import { selectScenarios } from './scenarios';
import { startServers } from './servers';
import { runBench, type RunInput } from './run';
import { tailReport } from './tail/report';
import { runTail } from './tail/run';
import { alertsReport } from './alerts/report';
import { runAlerts } from './alerts/run';
import { streamReport } from './stream/report';
import { runStream } from './stream/run';

const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

function parse(argv: string[]): BenchOptions | null {
  try {
    const options = parseOptions(argv);
    if (options === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return null;
    }
    selectScenarios(options.scenarios); // unknown names fail before any work
    return options;
  } catch (err) {
    // UsageError, parseArgs' TypeError (ERR_PARSE_ARGS_*), or an unknown scenario: all the caller's to fix.
    if (!(err instanceof UsageError || err instanceof Error)) throw err;
    process.stderr.write(`bench: ${err.message}\n${USAGE}\n`);
    process.exitCode = 2;
    return null;
  }
}

/** What a run writes: its Markdown, its own results beside the common ones, and the name of its latest copy. */
interface Written {
  latest: 'latest' | 'tail-latest' | 'stream-latest' | 'alerts-latest';
  markdown: string;
  extra?: Record<string, unknown>;
}

/**
 * <latest>.{json,md} always; quick.*, full.*, tail.*, stream.* or alerts.* too when the run was that
 * profile unchanged, so that the figures docs/benchmarks.md publishes survive later partial runs.
 */
function writeResults(results: BenchResults, { latest, markdown, extra }: Written): Written {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const json = `${JSON.stringify({ ...results, ...extra }, null, 2)}\n`;
  const bases = results.options.profile === 'custom' ? [latest] : [latest, results.options.profile];
  for (const base of bases) {
    for (const [name, body] of [
      [`${base}.json`, json],
      [`${base}.md`, markdown],
    ] as const) {
      // Written to a temporary name and renamed: an interrupted write never leaves half a file.
      const file = path.join(RESULTS_DIR, name);
      fs.writeFileSync(`${file}.tmp`, body);
      fs.renameSync(`${file}.tmp`, file);
    }
  }
  return { latest, markdown, extra };
}

/** Runs the kind of bench the options ask for and writes its results. */
async function runAndWrite(input: RunInput): Promise<Written> {
  const { options } = input;
  if (options.alerts) {
    const { bench, alerts } = await runAlerts(input);
    return writeResults(bench, {
      latest: 'alerts-latest',
      markdown: alertsReport(bench, alerts),
      extra: { alerts },
    });
  }
  if (options.stream) {
    const { bench, stream } = await runStream(input);
    return writeResults(bench, {
      latest: 'stream-latest',
      markdown: streamReport(bench, stream),
      extra: { stream },
    });
  }
  if (options.tail) {
    const { bench, tail } = await runTail(input);
    return writeResults(bench, { latest: 'tail-latest', markdown: tailReport(bench, tail), extra: { tail } });
  }
  const bench = await runBench(input);
  return writeResults(bench, { latest: 'latest', markdown: markdownReport(bench) });
}

async function main(argv: string[]): Promise<void> {
  const options = parse(argv);
  if (!options) return;
  const runId = new Date().toISOString().replace(/[:.]/g, '-');
  const servers = await startServers(log);
  const redis = new Redis(servers.redisUrl, { maxRetriesPerRequest: 3 });
  // Ctrl-C: stop the services (services.ts kills them on exit) and the servers this run started.
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    log('interrupted: stopping');
    redis.disconnect();
    void servers.stop(options.keepServers).finally(() => process.exit(130));
  });
  try {
    const input: RunInput = {
      options,
      servers,
      redis,
      runId,
      command: ['npm run bench', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' '),
      machine: await machineInfo(redis),
      cpuProfDir: options.cpuProf ? path.join(CACHE_DIR, 'bench', 'prof', runId) : undefined,
      load: loadAverage,
    };
    const { latest, markdown } = await runAndWrite(input);
    process.stdout.write(`\n${markdown}`);
    log(`results in ${path.relative(process.cwd(), RESULTS_DIR)}/${latest}.{json,md}`);
  } finally {
    if (!interrupted) {
      redis.disconnect();
      await servers.stop(options.keepServers);
    }
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
