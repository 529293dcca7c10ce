// `npm test`: installs what is missing, then typecheck, lint (eslint + prettier) and every vitest project side by side.
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

// `buffered`: the output is kept and printed in one piece when the command ends, so that steps
// running at the same time do not interleave their lines. `background`: the lowest CPU priority (nice 19).
function run(command, args, { buffered, background }) {
  return new Promise((resolve) => {
    const stdio = buffered ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'];
    const child = spawn(command, args, { cwd: ROOT, stdio });
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

async function step(name, command, args, { buffered = false, background = false } = {}) {
  const started = Date.now();
  log(`── ${name}: ${path.basename(command)} ${args.join(' ')}`);
  const { code, output } = await run(command, args, { buffered, background });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(`── ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${seconds} s`);
  return { name, ok: code === 0, seconds, output };
}

function testCounts() {
  try {
    const report = JSON.parse(fs.readFileSync(REPORT, 'utf8'));
    const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    // A file can fail outside its tests (an import, a beforeAll hook): its tests then count as skipped, and
    // the line must still say that something failed.
    const brokenFiles = report.testResults?.filter(
      (f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'),
    );
    const broken = brokenFiles?.length ? `, ${brokenFiles.length} file(s) failed outside their tests` : '';
    return `${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped${broken}`;
  } catch {
    return 'no report (vitest did not finish)';
  }
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

  // Everything side by side: the static checks (single-threaded, output buffered and printed after
  // the tests) and vitest. The integration tests spend much of their time waiting (service start-up,
  // Kafka group joins, produce rates, kills), which the checks fill. Run one after the other, the
  // checks' time (eslint's type-aware rules build the TypeScript program) came on top of the tests'.
  // The checks run at the lowest CPU priority: at normal priority they took half of the 2 cores while
  // the unit tests, the services' build and the test servers' start ran, and every integration file
  // waits for those. Planted lint faults
  // (test/lint/boundaries.test.ts) are in folders the checks ignore.
  const background = { buffered: true, background: true };
  // Typecheck and eslint share one TypeScript program (test/support/typecheck-and-lint.mjs says why).
  const checks = Promise.all([
    step('typecheck+eslint', process.execPath, ['test/support/typecheck-and-lint.mjs'], background),
    step('prettier', bin('prettier'), ['--check', '.'], background),
  ]);
  const vitest = await step('vitest', bin('vitest'), [
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${REPORT}`,
  ]);
  const results = [...(await checks), vitest];
  for (const r of results) if (r.output) process.stdout.write(r.output);
  const failed = results.filter((r) => !r.ok);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const steps = results.map((r) => `${r.name} ${r.ok ? 'ok' : 'FAILED'}`).join(' | ');
  // The last line is the plain "N passed, N failed" summary that CI tools read; nothing may follow it.
  console.log(`\n${steps} | ${minutes} min`);
  console.log(`tests: ${testCounts()}`);
  process.exit(failed.length === 0 ? 0 : 1);
}

main().catch((error) => {
  log(`failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
