// Installs what is missing: node_modules via npm, redis-server, Java and Maven via apt,
// and the Kafka broker's jars via Maven Central. Each step is skipped when its result is already there.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { KAFKA_LIBS_DIR, KAFKA_POM, ROOT } from './paths.mjs';
import { commandExists } from './proc.mjs';
import { makeLog } from './log.mjs';

const log = makeLog('install');
export const KAFKA_VERSION = '3.9.1';
const KAFKA_JAR = `kafka_2.13-${KAFKA_VERSION}.jar`;

function run(command, args, { quiet = false, ...options } = {}) {
  log(`$ ${command} ${args.join(' ')}`);
  // The child's stdout goes to our stderr: `npm run cli` keeps stdout for the command's answer.
  const stdio = ['ignore', quiet ? 'pipe' : 2, quiet ? 'pipe' : 'inherit'];
  const result = spawnSync(command, args, { stdio, cwd: ROOT, encoding: 'utf8', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    const output = quiet ? `\n${result.stdout}${result.stderr}` : '';
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status}${output}`);
  }
}

let aptUpdated = false;
function aptInstall(packages) {
  if (!commandExists('apt-get')) {
    throw new Error(`missing ${packages.join(', ')} and no apt-get here: install them and run again`);
  }
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const [command, ...prefix] = [...sudo, 'apt-get'];
  if (!aptUpdated) run(command, [...prefix, 'update', '-q'], { env });
  aptUpdated = true;
  run(command, [...prefix, 'install', '-y', '-q', '--no-install-recommends', ...packages], { env });
}

/** Installs node_modules when missing or older than package-lock.json (a pull that changed dependencies). */
export function ensureNodeModules() {
  const lock = path.join(ROOT, 'package-lock.json');
  const installed = path.join(ROOT, 'node_modules', '.package-lock.json');
  const hasLock = fs.existsSync(lock);
  if (fs.existsSync(installed) && (!hasLock || fs.statSync(installed).mtimeMs >= fs.statSync(lock).mtimeMs))
    return;
  // `npm ci` where there is a lock file, as Node projects install in CI: it installs exactly what the lock pins and
  // fails when package.json and the lock disagree, so a lock that drifted shows up here and not on a user's
  // machine. .npmrc silences npm (loglevel=silent, for the CLI's stdout); an install should say what goes wrong.
  run('npm', [hasLock ? 'ci' : 'install', '--no-audit', '--no-fund', '--loglevel=warn']);
}

export function ensureRedisServer() {
  if (commandExists('redis-server')) return;
  aptInstall(['redis-server']);
}

/** Where the browser test and the screenshot script find Chromium (Debian's package, driven by playwright-core). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Debian's `chromium` for the dashboard's browser test; never a browser download from elsewhere. */
export function ensureChromium() {
  if (fs.existsSync(CHROMIUM_PATH)) return;
  aptInstall(['chromium']);
}

export function ensureKafkaJars() {
  if (fs.existsSync(path.join(KAFKA_LIBS_DIR, KAFKA_JAR))) return;
  if (!commandExists('java')) aptInstall(['default-jre-headless']);
  if (!commandExists('mvn')) aptInstall(['maven']);
  const started = Date.now();
  // Fetched into a private folder and renamed into place: a concurrent run never sees half a download.
  const partial = `${KAFKA_LIBS_DIR}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  // An absolute output directory: a relative one resolves against the pom's folder, not the cwd.
  // Maven's output is kept for failures only (with -q it is just terminal escape codes otherwise).
  run(
    'mvn',
    [
      '-q',
      '-B',
      '-f',
      KAFKA_POM,
      'dependency:copy-dependencies',
      `-DoutputDirectory=${partial}`,
      '-DincludeScope=runtime',
    ],
    { quiet: true },
  );
  if (!fs.existsSync(path.join(partial, KAFKA_JAR))) throw new Error(`Maven did not fetch ${KAFKA_JAR}`);
  if (fs.existsSync(path.join(KAFKA_LIBS_DIR, KAFKA_JAR))) {
    fs.rmSync(partial, { recursive: true, force: true }); // another run finished first
  } else {
    fs.rmSync(KAFKA_LIBS_DIR, { recursive: true, force: true });
    fs.renameSync(partial, KAFKA_LIBS_DIR);
  }
  log(`Kafka ${KAFKA_VERSION} jars fetched in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
