// `npm test`: installs what is missing, then typecheck, lint (eslint + prettier) and every vitest project side by side.
// What is a pure function of the files (typecheck, eslint, prettier, the unit tests) runs through turbo (turbo.json),
// which replays a task's output and outputs instead of running it again when none of its inputs changed; the
// integration and cluster tests run every time (they test servers, not files).
// Every step runs even when an earlier one failed (one report with everything); the exit code is non-zero
// if any failed. The last line is the summary, e.g. `tests: 120 passed, 0 failed, 2 skipped` (the steps' status is on the line before).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureChromium, ensureKafkaJars, ensureNodeModules, ensureRedisServer } from './lib/install.mjs';
import { CACHE_DIR, ROOT } from './lib/paths.mjs';
import { makeLog } from './lib/log.mjs';

const log = makeLog('test');
const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);
const REPORT = path.join(CACHE_DIR, 'vitest-report.json');
/** Written by the root `test:unit` script; a turbo output, so a cached run restores it with the unit tests' counts. */
const UNIT_REPORT = path.join(CACHE_DIR, 'vitest-unit-report.json');
/** turbo's environment: no telemetry and no update check from a test run. */
const TURBO_ENV = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' };

// `buffered`: the output is kept and printed in one piece when the command ends, so that steps
// running at the same time do not interleave their lines. `background`: the lowest CPU priority (nice 19).
function run(command, args, { buffered, background, env }) {
  return new Promise((resolve) => {
    const stdio = buffered ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'];
    const child = spawn(command, args, { cwd: ROOT, stdio, env: env ?? process.env });
    if (background && child.pid !== undefined) {
      try {
        os.setPriority(child.pid, 19);
      } catch {
        // Not allowed here: it runs at normal priority, only slower for the tests beside it.
      }
    }
    const chunks = [];
    child.stdout?.on('data', (chunk) => chunks.push(chunk));
    child.stderr?.on('data', (chunk) => chunks.push(chunk));
    child.once('error', (error) => {
      log(`${command}: ${error.message}`);
      resolve({ code: 1, output: Buffer.concat(chunks).toString() });
    });
    child.once('close', (code, signal) =>
      resolve({ code: signal ? 1 : (code ?? 1), output: Buffer.concat(chunks).toString() }),
    );
  });
}

async function step(name, command, args, { buffered = false, background = false, env } = {}) {
  const started = Date.now();
  log(`── ${name}: ${path.basename(command)} ${args.join(' ')}`);
  const { code, output } = await run(command, args, { buffered, background, env });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  // turbo's own summary says how many of its tasks were replayed from its cache.
  const cached = /Cached:\s+(\d+) cached, (\d+) total/.exec(output);
  const note = cached ? ` (${cached[1]} of ${cached[2]} from turbo's cache)` : '';
  log(`── ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${seconds} s${note}`);
  return { name, ok: code === 0, seconds, output };
}

function readReport(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The failed tests of both reports, one block each (file, test, the start of its message): printed just above
 * the summary, so that a CI log that keeps only its tail still says what failed.
 */
function failedTests() {
  const lines = [];
  for (const report of [readReport(UNIT_REPORT), readReport(REPORT)]) {
    for (const file of report?.testResults ?? []) {
      const where = path.relative(ROOT, file.name);
      const tests = file.assertionResults.filter((a) => a.status === 'failed');
      if (file.status === 'failed' && tests.length === 0) {
        lines.push(`✗ ${where} (outside its tests): ${clip(file.message)}`);
      }
      for (const t of tests)
        lines.push(`✗ ${where} > ${t.fullName}: ${clip(t.failureMessages?.join(' ') ?? '')}`);
    }
  }
  return lines;
}

function clip(message = '') {
  const flat = message.replace(/\s+/g, ' ').trim();
  return flat.length > 600 ? `${flat.slice(0, 600)}…` : flat;
}

/** Both vitest reports (unit, from turbo; integration and cluster) summed into one line. */
function testCounts() {
  const totals = { passed: 0, failed: 0, skipped: 0, broken: 0 };
  for (const [file, what] of [
    [UNIT_REPORT, 'unit'],
    [REPORT, 'integration'],
  ]) {
    const report = readReport(file);
    if (!report) return `no report of the ${what} tests (vitest did not finish)`;
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    // A file can fail outside its tests (an import, a beforeAll hook): its tests then count as skipped, and
    // the line must still say that something failed.
    totals.broken +=
      report.testResults?.filter(
        (f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'),
      ).length ?? 0;
  }
  const broken = totals.broken ? `, ${totals.broken} file(s) failed outside their tests` : '';
  return `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped${broken}`;
}

async function main() {
  const started = Date.now();
  ensureNodeModules();
  // The integration tests start their own Kafka and Redis unless both are given.
  if (!process.env.REDIS_URL) ensureRedisServer();
  if (!process.env.KAFKA_BROKERS) ensureKafkaJars();
  // The dashboard's browser test drives Debian's Chromium.
  ensureChromium();
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  fs.rmSync(REPORT, { force: true });
  // A failed unit run is not cached: without this, a report of an earlier run could be counted.
  fs.rmSync(UNIT_REPORT, { force: true });

  // Everything side by side: the static checks (single-threaded, output buffered and printed after
  // the tests), the unit tests and the integration tests. The integration tests spend much of their time
  // waiting (service start-up, Kafka group joins, produce rates, kills), which the checks fill. Run one after
  // the other, the checks' time (eslint's type-aware rules build the TypeScript program) came on top of the tests'.
  // The checks run at the lowest CPU priority: at normal priority they took half of the 2 cores while
  // the unit tests, the services' build and the test servers' start ran. Planted lint faults
  // (test/lint/boundaries.test.ts) are in folders the checks ignore (and outside turbo's inputs).
  // The unit tests keep normal priority: their timeouts are sized for it.
  const turbo = ['run', '--output-logs=full', '--log-prefix=task', '--ui=stream'];
  const background = { buffered: true, background: true, env: TURBO_ENV };
  // Typecheck and eslint share one TypeScript program (root script `check`; test/support/typecheck-and-lint.mjs
  // says why).
  const checks = step(
    'typecheck+eslint, prettier',
    bin('turbo'),
    [...turbo, 'check', 'format:check'],
    background,
  );
  const unit = step('unit', bin('turbo'), [...turbo, 'test:unit'], { buffered: true, env: TURBO_ENV });
  const vitest = await step('integration', bin('vitest'), [
    'run',
    '--project',
    'integration',
    '--project',
    'cluster',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${REPORT}`,
  ]);
  const results = [await checks, await unit, vitest];
  for (const r of results) if (r.output) process.stdout.write(r.output);
  const failed = results.filter((r) => !r.ok);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const steps = results.map((r) => `${r.name} ${r.ok ? 'ok' : 'FAILED'}`).join(' | ');
  // The last line is the plain "N passed, N failed" summary that CI tools read; nothing may follow it.
  const failures = failedTests();
  if (failures.length > 0) console.log(`\nfailed tests:\n${failures.join('\n')}`);
  console.log(`\n${steps} | ${minutes} min`);
  console.log(`tests: ${testCounts()}`);
  process.exit(failed.length === 0 ? 0 : 1);
}

main().catch((error) => {
  log(`failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
