// Start time and memory of each service, run from TypeScript through tsx (how `npm start` ran them before the
// build step) and compiled (services/<name>/dist/main.js, as now), against the Kafka and Redis of KAFKA_BROKERS
// and REDIS_URL. Start time: spawn until the service's /health answers 200 (query: PORT; ingest and compactor:
// their metrics port). RSS: VmRSS of /proc/<pid>/status once healthy. Median of --runs (default 5) per cell.
//   KAFKA_BROKERS=127.0.0.1:29092 REDIS_URL=redis://127.0.0.1:26380 node infra/measure-start.mjs [--runs 5]
// docs/deploy.md has the figures.
/* global performance, AbortSignal -- Node 20 built-ins; the shared eslint config lists only a few globals. */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureBuilt } from './lib/build.mjs';
import { ROOT } from './lib/paths.mjs';
import { ensureTopics } from './lib/topics.mjs';
import { makeLog } from './lib/log.mjs';
import { nodeFlagsOf, serviceEnvOf } from './lib/service-runtime.mjs';

const log = makeLog('measure');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;
const SERVICES = ['ingest', 'compactor', 'query'];
const MODES = {
  tsx: (name) => ['--import', 'tsx', `services/${name}/src/main.ts`],
  dist: (name) => ['--enable-source-maps', `services/${name}/dist/main.js`],
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measureOnce(name, mode, env) {
  const ports = {
    PORT: await freePort(),
    INGEST_METRICS_PORT: await freePort(),
    COMPACTOR_METRICS_PORT: await freePort(),
  };
  const healthPort = {
    query: ports.PORT,
    ingest: ports.INGEST_METRICS_PORT,
    compactor: ports.COMPACTOR_METRICS_PORT,
  }[name];
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeFlagsOf(name), ...MODES[mode](name)], {
    cwd: ROOT,
    env: {
      ...serviceEnvOf(name),
      ...env,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${name} (${mode}) exited with ${child.exitCode}`);
      try {
        const response = await fetch(`http://127.0.0.1:${healthPort}/health`, {
          signal: AbortSignal.timeout(1_000),
        });
        if (response.status === 200) break;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 60_000) throw new Error(`${name} (${mode}) not healthy after 60 s`);
      await sleep(10);
    }
    const startMs = performance.now() - started;
    await sleep(500); // let start-up garbage settle as it would
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
    return { startMs, rssMb };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function main() {
  if (!process.env.KAFKA_BROKERS || !process.env.REDIS_URL)
    throw new Error('set KAFKA_BROKERS and REDIS_URL');
  await ensureBuilt();
  const id = `measure-${crypto.randomBytes(3).toString('hex')}`;
  const env = {
    ...process.env,
    REDIS_KEY_PREFIX: id,
    KAFKA_TOPIC: `${id}.events`,
    KAFKA_GROUP: `${id}-ingest`,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
  };
  await ensureTopics(process.env.KAFKA_BROKERS, env, log);
  const rows = [];
  for (const name of SERVICES) {
    for (const mode of Object.keys(MODES)) {
      const results = [];
      for (let i = 0; i < RUNS; i++) results.push(await measureOnce(name, mode, env));
      const row = {
        service: name,
        mode,
        startMs: Math.round(median(results.map((r) => r.startMs))),
        rssMb: Math.round(median(results.map((r) => r.rssMb))),
      };
      log(`${name} ${mode}: start ${row.startMs} ms, RSS ${row.rssMb} MB (median of ${RUNS})`);
      rows.push(row);
    }
  }
  process.stdout.write(
    `| service | run | start to /health 200 (ms) | RSS when ready (MB) |\n| --- | --- | --: | --: |\n`,
  );
  for (const r of rows) process.stdout.write(`| ${r.service} | ${r.mode} | ${r.startMs} | ${r.rssMb} |\n`);
  log(`topics ${id}.* and Redis keys ${id}:* are left behind (shared servers: delete them if you like)`);
}

await main();
