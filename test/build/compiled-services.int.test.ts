/**
 * The compiled services, as `npm start` and the Docker image run them: the build (when stale), then
 * `node services/<name>/dist/main.js` for the ingest worker, the compactor and the query service, and the
 * compiled CLI through `npm run cli`'s runner. Events go in through Kafka and come out of the query service:
 * the bundles find their Lua scripts (ingest writes with them, the query service reads with them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { createClient } from '@va/client';
import type { VerificationEvent } from '@va/contracts';
import { ensureBuilt, buildTargets, staleReason } from '@va/infra/build';
import { CACHE_DIR, ROOT } from '@va/infra/paths';
import { eventMessages, produceMessages } from '@va/testkit';
import { createTopics, deleteTopics, testEnv, track, waitFor, type TestEnv } from '@va/testkit/support';
import { deletePrefix } from '@va/store/testing';

interface Compiled {
  child: ChildProcess;
  exited: Promise<number | null>;
  logFile: string;
}

const LOG_DIR = path.join(CACHE_DIR, 'test-logs');

function startCompiled(name: string, env: Record<string, string>): Compiled {
  fs.mkdirSync(LOG_DIR, { recursive: true });
  const logFile = path.join(LOG_DIR, `compiled.${name}.${Date.now()}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--enable-source-maps', `services/${name}/dist/main.js`], {
    cwd: ROOT,
    env,
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  track(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, logFile };
}

/** `npm run cli -- ...` without npm: the same runner script (build when stale, then the compiled CLI). */
function runCli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['infra/cli.mjs', ...args], { cwd: ROOT, env });
    track(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function healthy(url: string, service: Compiled): Promise<void> {
  await waitFor(
    async () => {
      if (service.child.exitCode !== null)
        throw new Error(`exited: ${fs.readFileSync(service.logFile, 'utf8')}`);
      return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200;
    },
    { timeoutMs: 60_000, intervalMs: 200, message: `${url} healthy (log ${service.logFile})` },
  );
}

describe('compiled services (dist/)', () => {
  let t: TestEnv;
  const services: Record<string, Compiled> = {};

  beforeAll(async () => {
    await ensureBuilt();
    t = await testEnv('compiled services');
    await createTopics(t.kafkaBrokers, [t.topic, t.dlqTopic, t.backfillTopic], 4);
    for (const name of ['ingest', 'compactor', 'query']) services[name] = startCompiled(name, t.env);
    await Promise.all([
      healthy(`http://127.0.0.1:${t.ingestMetricsPort}/health`, services.ingest!),
      healthy(`http://127.0.0.1:${t.compactorMetricsPort}/health`, services.compactor!),
      healthy(`${t.queryUrl}/health`, services.query!),
    ]);
  });

  afterAll(async () => {
    for (const service of Object.values(services)) {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
    if (t) {
      await deleteTopics(t.kafkaBrokers, [t.topic, t.dlqTopic, t.backfillTopic]);
      await deletePrefix(t.redisUrl, t.keyPrefix);
    }
  });

  it('builds every entry: up to date afterwards, no TypeScript loader in the processes', () => {
    expect(staleReason()).toBeUndefined();
    expect(buildTargets().map((target) => target.name)).toEqual(
      expect.arrayContaining(['cli', 'compactor', 'ingest', 'query']),
    );
    for (const [name, service] of Object.entries(services)) {
      const cmdline = fs.readFileSync(`/proc/${service.child.pid}/cmdline`, 'utf8').split('\0');
      expect(cmdline).toContain(`services/${name}/dist/main.js`);
      expect(cmdline.join(' ')).not.toContain('tsx');
      // The Lua scripts travel with every bundle that runs them.
      expect(fs.readdirSync(path.join(ROOT, 'services', name, 'dist', 'commands'))).toContain(
        'readBuckets.lua',
      );
      expect(
        fs.existsSync(path.join(ROOT, 'services', name, 'dist', 'commands', 'includes', 'time.lua')),
      ).toBe(true);
      // Worker threads are loaded by URL beside main.js (the query service's read pool).
      const workers = buildTargets().find((target) => target.name === name)?.workers ?? [];
      if (name === 'query') expect(workers.map((worker) => worker.name)).toContain('read-worker');
      for (const worker of workers)
        expect(fs.existsSync(path.join(ROOT, 'services', name, 'dist', `${worker.name}.js`))).toBe(true);
    }
  });

  it('counts events from Kafka and answers with a key the compiled CLI created', async () => {
    const apiId = 'api_compiled';
    const now = Date.now();
    const events: VerificationEvent[] = Array.from({ length: 300 }, (_, i) => ({
      requestId: `req_compiled_${i}`,
      time: now - (i % 5) * 3_600_000,
      workspaceId: 'ws_compiled',
      apiId,
      keyId: `key_${i % 7}`,
      outcome: i % 3 === 0 ? 'RATE_LIMITED' : 'VALID',
    }));
    const kafka = new Kafka({ clientId: 'compiled-test', brokers: t.kafkaBrokers, logLevel: logLevel.WARN });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await produceMessages(producer, eventMessages(events), { topic: t.topic });
    await producer.disconnect();

    const created = await runCli(
      ['root-key', 'create', '--workspace', 'ws_compiled', '--permission', 'api.*.read_api'],
      t.env,
    );
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.split('\n')[0]!;
    expect(key).toMatch(/^\S+$/);

    const client = createClient({ baseUrl: t.queryUrl, token: key });
    const totals = await waitFor(
      async () => {
        const point = (await client.getVerifications({ apiId, start: 0 })).datapoints[0];
        return point?.total === events.length ? point : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250, message: `${events.length} events counted` },
    );
    expect(totals.valid).toBe(events.filter((e) => e.outcome === 'VALID').length);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    const codes = await Promise.all(
      Object.values(services).map((service) => {
        service.child.kill('SIGTERM');
        return service.exited;
      }),
    );
    expect(codes).toEqual([0, 0, 0]);
  });
});
