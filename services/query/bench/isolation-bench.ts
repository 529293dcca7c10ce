/**
 * Benchmark of query isolation (issue #12) against a running query service over HTTP:
 *
 *   REDIS_URL=redis://127.0.0.1:36001 npx tsx services/query/bench/isolation-bench.ts seed [--events 1000000]
 *   REDIS_URL=... REDIS_KEY_PREFIX=<printed by seed> PORT=36010 npm run query       (any way of starting it)
 *   REDIS_URL=... npx tsx services/query/bench/isolation-bench.ts run --url http://127.0.0.1:36010
 *
 * `seed` writes a medium tenant straight into Redis through the ingest worker's batch processor
 * (no Kafka; the same scripts), compacts it, and stores a root key for `run` under the prefix.
 * `run` measures, over HTTP:
 *   - under load: a light groupBy=day 30-day query, sampled sequentially, while `--heavy` worst-case
 *     requests (groupBy=key&groupBy=tags&groupBy=hour&start=0&limit=100000) run in a loop (in a
 *     child process, so that receiving their 20 MB answers does not delay the sampler);
 *   - refusals: an over-cap request (groupBy=key&groupBy=hour&start=0, no limit);
 *   - a 100,000-row answer.
 * With `--pid <service pid>` it also prints the service's CPU time per request (all its threads).
 * REDIS_URL must be a private server (never the shared 6379).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { loadConfig } from '@va/config';
import { hourOf } from '@va/core';
import { compactApi, createRootKey, registerApi, sealApi } from '@va/store';
import { createGenerator } from '@va/testkit';
import { seedEvents } from '@va/ingest/testing';

const DAY_MS = 86_400_000;
const API = 'api_medium';
const WORKSPACE = 'ws_medium';

const { values } = parseArgs({
  args: process.argv.slice(3),
  options: {
    events: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '90' },
    keys: { type: 'string', default: '2000' },
    identities: { type: 'string', default: '2000' },
    prefix: { type: 'string', default: 'iso-medium' },
    url: { type: 'string', default: 'http://127.0.0.1:8080' },
    // The service's internal port (QUERY_METRICS_PORT), where /metrics is.
    'metrics-url': { type: 'string', default: 'http://127.0.0.1:9103' },
    heavy: { type: 'string', default: '10' },
    samples: { type: 'string', default: '200' },
    pid: { type: 'string' },
  },
});
const mode = process.argv[2];
const redisUrl = process.env.REDIS_URL;
if (!redisUrl || /:6379\b/.test(redisUrl)) throw new Error('set REDIS_URL to a private Redis (not 6379)');
const prefix = values.prefix;

async function seed(): Promise<void> {
  const redis = new Redis(redisUrl!);
  const config = loadConfig({});
  const events = Number(values.events);
  const days = Number(values.days);
  const now = Date.now();
  const gen = createGenerator({
    seed: 7,
    apis: 1,
    workspaces: 1,
    keys: Number(values.keys),
    identities: Number(values.identities),
    startMs: now - days * DAY_MS,
    spanMs: days * DAY_MS,
  });
  await registerApi(redis, prefix, API, WORKSPACE);
  const chunk = 20_000;
  const started = performance.now();
  for (let done = 0; done < events; done += chunk) {
    const batch = Array.from({ length: Math.min(chunk, events - done) }, () => {
      const e = gen.next();
      e.apiId = API;
      e.workspaceId = WORKSPACE;
      return e;
    });
    await seedEvents(redis, batch, { prefix, now, retention: config.retention });
    process.stdout.write(
      `\rseeded ${done + batch.length} (${Math.round((performance.now() - started) / 1000)} s)`,
    );
  }
  const result = await compactApi(redis, { prefix, generation: 1 }, API, {
    closedBound: hourOf(now) - 1,
    retention: config.retention,
    now,
  });
  // As the compactor does after compacting: seal the closed buckets into sections (store v2).
  const closed = hourOf(now) - 1;
  let sealed = 0;
  for (;;) {
    const run = await sealApi(redis, { prefix, generation: 1 }, API, closed, {
      now,
      retention: config.retention,
    });
    sealed += run.sealed;
    if (run.sealed === 0) break;
  }
  console.log(`sealed ${sealed} buckets`);
  const { key } = await createRootKey(redis, prefix, {
    workspaceId: WORKSPACE,
    permissions: ['api.*.read_api'],
    now,
  });
  await redis.set(`${prefix}:bench:root-key`, key);
  console.log(`\ncompacted ${result.hoursCompacted} hours; REDIS_KEY_PREFIX=${prefix}`);
  redis.disconnect();
}

interface Timed {
  ms: number;
  status: number;
  bytes: number;
  rows?: number;
}

async function get(url: string, key: string, gzip = false, parse = true): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${key}`, ...(gzip && { 'accept-encoding': 'gzip' }) },
  });
  const body = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - started;
  let rows: number | undefined;
  // fetch decompresses by itself; `bytes` is the size of the JSON.
  if (response.status === 200 && parse) rows = (JSON.parse(body.toString()) as unknown[]).length;
  return { ms, status: response.status, bytes: body.length, ...(rows !== undefined && { rows }) };
}

/**
 * The worst-case load, in a process of its own (`load` mode, started by `run`): receiving and
 * decompressing 20 MB answers in the process that times the light query would add the
 * client's own event-loop delay to the service's figures.
 */
async function load(): Promise<void> {
  const [url, key] = [process.env.BENCH_URL!, process.env.BENCH_KEY!];
  let stop = false;
  process.on('message', () => (stop = true));
  const heavy: Timed[] = [];
  await Promise.all(
    Array.from({ length: Number(values.heavy) }, async () => {
      while (!stop) heavy.push(await get(url, key, true, false));
    }),
  );
  process.send!(heavy);
  process.disconnect();
}

/**
 * CPU time (ms) the service process has used so far, every thread counted (/proc/<pid>/stat
 * utime + stime, in clock ticks of 10 ms), with `--pid` (a service on this machine): on a
 * shared, loaded machine the CPU a request costs says more than its wall time.
 */
function serviceCpuMs(): number | undefined {
  if (values.pid === undefined) return undefined;
  const stat = readFileSync(`/proc/${values.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Runs `count` requests one after the other; prints their summary and the service CPU per request. */
async function measure(name: string, count: number, request: () => Promise<Timed>): Promise<void> {
  const cpuBefore = serviceCpuMs();
  const timings: Timed[] = [];
  for (let i = 0; i < count; i++) timings.push(await request());
  const cpuAfter = serviceCpuMs();
  summary(name, timings);
  if (cpuBefore !== undefined && cpuAfter !== undefined) {
    console.log(`  service CPU: ${((cpuAfter - cpuBefore) / count).toFixed(0)} ms per request`);
  }
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

function summary(name: string, timings: readonly Timed[]): void {
  const ms = timings.map((t) => t.ms).sort((a, b) => a - b);
  const statuses = [...new Set(timings.map((t) => t.status))].join(',');
  console.log(
    `${name}: n=${ms.length} status=${statuses} p50=${quantile(ms, 0.5).toFixed(1)} ms ` +
      `p99=${quantile(ms, 0.99).toFixed(1)} ms max=${ms.at(-1)!.toFixed(1)} ms` +
      (timings[0]?.rows !== undefined ? ` rows=${timings[0].rows} bytes=${timings[0].bytes}` : ''),
  );
}

async function run(): Promise<void> {
  const redis = new Redis(redisUrl!);
  const key = await redis.get(`${prefix}:bench:root-key`);
  redis.disconnect();
  if (!key) throw new Error(`no data set under ${prefix}: run seed first`);
  const base = `${values.url}/v1/analytics.getVerifications?apiId=${API}`;
  const now = Date.now();
  const light = `${base}&groupBy=day&start=${now - 30 * DAY_MS}`;
  const worst = `${base}&groupBy=key&groupBy=tags&groupBy=hour&start=0&limit=100000`;
  const overCap = `${base}&groupBy=key&groupBy=hour&start=0`;
  const big = `${base}&groupBy=key&groupBy=hour&start=${now - 50 * DAY_MS}&limit=100000`;
  // The service's event-loop delay since the previous scrape (ms): p99 and max of one window.
  const loopDelay = async (): Promise<{ p99: number; max: number }> => {
    const text = await (await fetch(`${values['metrics-url']}/metrics`)).text();
    const gauge = (stat: string) =>
      Number(
        new RegExp(`^va_query_event_loop_delay_${stat}_seconds(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(
          text,
        )?.[1] ?? NaN,
      ) * 1000;
    return { p99: gauge('p99'), max: gauge('max') };
  };
  const samples = Number(values.samples);

  // Warm up (dictionaries are cached per service process).
  await get(light, key);
  await measure('100,000-row answer (key x hour, 50 days, gzip), alone', 10, () => get(big, key, true));
  await measure('worst case (key x tags x hour since 1970, limit 100000, gzip), alone', 3, () =>
    get(worst, key, true),
  );
  await measure('over-cap refusal', samples, () => get(overCap, key));

  const loader = fork(fileURLToPath(import.meta.url), ['load', '--heavy', values.heavy], {
    env: { ...process.env, BENCH_URL: worst, BENCH_KEY: key },
  });
  const heavyDone = new Promise<Timed[]>((resolve) => loader.once('message', (m) => resolve(m as Timed[])));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await loopDelay(); // starts the service's window
  const lights = [];
  for (let i = 0; i < samples; i++) lights.push(await get(light, key));
  const delay = await loopDelay();
  loader.send('stop');
  const heavy = await heavyDone;
  console.log(
    `service event-loop delay while loaded: p99 ${delay.p99.toFixed(1)} ms, max ${delay.max.toFixed(1)} ms`,
  );
  summary(`light 30-day query while ${values.heavy} worst-case requests run`, lights);
  summary('worst-case requests during that time', heavy);
  if (heavy.length > 0) console.log(`  (${heavy[0]!.bytes} bytes of JSON each, gzip on the wire)`);
}

if (mode === 'seed') await seed();
else if (mode === 'run') await run();
else if (mode === 'load') await load();
else throw new Error('usage: isolation-bench.ts seed|run [options]');
