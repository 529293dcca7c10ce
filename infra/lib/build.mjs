// The build step (docs/deploy.md): esbuild bundles each process entry (services/*/src/main.ts, tools/*/src/main.ts)
// into <package>/dist/main.js. Our workspace packages export TypeScript sources, so they are bundled in; npm
// packages, and workspace packages that are already JavaScript (e.g. @va/dashboard, which finds its dist/ folder
// relative to its own module), stay external and are loaded from node_modules at run time. Files a bundled module
// reads next to itself at run time are copied next to the bundle (ASSETS). Then every workspace's own `build`
// script runs (the dashboard's static page). Logs go to stderr only: `npm run cli` keeps stdout for its answer.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CACHE_DIR, ROOT } from './paths.mjs';
import { makeLog } from './log.mjs';
import { isAlive, readPid, writePid } from './proc.mjs';

const log = makeLog('build');
const THIS_FILE = fileURLToPath(import.meta.url);

/** Where the process entries live; each `<dir>/<package>/src/main.ts` becomes `<dir>/<package>/dist/main.js`. */
const ENTRY_DIRS = ['services', 'tools'];
/** Walked for the staleness check: any file or folder newer than the stamp means a rebuild. */
export const SOURCE_DIRS = ['libs', 'services', 'tools', 'apps'];
/** Build outputs and installs inside SOURCE_DIRS, never inputs. */
const SKIP_DIRS = new Set(['node_modules', 'dist', '.turbo', 'coverage']);
/** Top-level files that change what a build produces. */
const ROOT_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.base.json'];
/**
 * Files read at run time relative to a bundled module's own location. libs/store/src/commands.ts reads
 * `<its folder>/commands/*.lua`; bundled, "its folder" is the bundle's dist/, so the scripts are copied there.
 */
const ASSETS = [{ from: 'libs/store/src/commands', to: 'commands', suffix: '.lua' }];

export const STAMP_FILE = path.join(CACHE_DIR, 'build-stamp.json');

/** The process entries to bundle: `{ name, entry, outdir, main }` with paths relative to ROOT. */
export function buildTargets() {
  const targets = [];
  for (const dir of ENTRY_DIRS) {
    const base = path.join(ROOT, dir);
    if (!fs.existsSync(base)) continue;
    for (const name of fs.readdirSync(base).sort()) {
      const entry = path.join(dir, name, 'src', 'main.ts');
      if (!fs.existsSync(path.join(ROOT, entry))) continue;
      const outdir = path.join(dir, name, 'dist');
      const workers = workerEntries(path.join(dir, name, 'src'));
      targets.push({ name, entry, workers, outdir, main: path.join(outdir, 'main.js') });
    }
  }
  return targets;
}

/**
 * Worker-thread entries of a package: any `src/.../<name>-worker.ts`. A pool loads them by URL next to the module
 * that starts it (services/query read-pool.ts: `new URL('./read-worker.js', import.meta.url)`), which bundled is
 * dist/main.js: so each is bundled to `dist/<name>-worker.js`.
 */
function workerEntries(srcDir) {
  const found = [];
  const abs = path.join(ROOT, srcDir);
  for (const file of fs.readdirSync(abs, { recursive: true, encoding: 'utf8' }).sort()) {
    if (!file.endsWith('-worker.ts') || file.includes('node_modules')) continue;
    found.push({ name: path.basename(file, '.ts'), entry: path.join(srcDir, file) });
  }
  return found;
}

/** True when a file or folder under p is newer than `since` (ms); stops at the first one. */
function anyNewer(p, since) {
  let stat;
  try {
    stat = fs.statSync(p);
  } catch {
    return false;
  }
  if (!stat.isDirectory()) return stat.mtimeMs > since;
  const entries = fs.readdirSync(p, { withFileTypes: true });
  // A folder's mtime changes when a file in it is deleted or renamed: that counts, except for a package's
  // own folder, whose mtime the build itself bumps (it replaces dist/ there).
  if (stat.mtimeMs > since && !entries.some((e) => e.name === 'package.json')) return true;
  for (const entry of entries) {
    if (entry.isDirectory() && (SKIP_DIRS.has(entry.name) || /\.(partial|old)-/.test(entry.name))) continue;
    if (anyNewer(path.join(p, entry.name), since)) return true;
  }
  return false;
}

/**
 * Why a build is needed, or undefined when the outputs are up to date. Cheap: stats only (a few hundred
 * files, a few milliseconds), and stops at the first newer one. Folders count too: a deleted or added file
 * changes its folder's mtime.
 */
export function staleReason() {
  let stamp;
  try {
    stamp = fs.statSync(STAMP_FILE).mtimeMs;
  } catch {
    return 'never built';
  }
  for (const target of buildTargets()) {
    if (!fs.existsSync(path.join(ROOT, target.main))) return `${target.main} is missing`;
  }
  const inputs = [...ROOT_INPUTS, ...SOURCE_DIRS, path.relative(ROOT, THIS_FILE)];
  const changed = inputs.find((input) => anyNewer(path.join(ROOT, input), stamp));
  return changed === undefined ? undefined : `${changed} changed since the last build`;
}

/**
 * Externals: bare imports that stay `import 'x'` in the bundle. A workspace package is bundled when it
 * resolves to TypeScript (Node cannot run it), kept external when it is JavaScript already. Exported for
 * test/build/production-install.test.ts, which checks that every external is in the production install.
 */
export const externalsPlugin = {
  name: 'externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('node:') || args.pluginData?.viaPlugin) return undefined;
      if (args.path.startsWith('@va/')) {
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { viaPlugin: true },
        });
        if (resolved.errors.length === 0 && /\.[mc]?ts$/.test(resolved.path)) return resolved;
      }
      return { path: args.path, external: true };
    });
  },
};

function copyAssets(outdir) {
  for (const asset of ASSETS) {
    const from = path.join(ROOT, asset.from);
    const to = path.join(outdir, asset.to);
    // Recursive: scripts splice in files of sub-folders (commands/includes/*.lua) at load time.
    for (const file of fs.readdirSync(from, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith(asset.suffix)) continue;
      fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
      fs.copyFileSync(path.join(from, file), path.join(to, file));
    }
  }
}

/** Bundles one target into a fresh folder and swaps it in: a process starting meanwhile never sees half a build. */
async function bundle(esbuild, target) {
  const outdir = path.join(ROOT, target.outdir);
  const partial = `${outdir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: {
      main: path.join(ROOT, target.entry),
      ...Object.fromEntries(target.workers.map((w) => [w.name, path.join(ROOT, w.entry)])),
    },
    outdir: partial,
    bundle: true,
    // The CLI loads its commands lazily (dynamic import): one chunk per command keeps that lazy.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    // Unminified: stack traces and profiles keep our function names (the bundles are small either way).
    minify: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [externalsPlugin],
  });
  copyAssets(partial);
  // Two renames, then the removal: dist/ is missing for microseconds only (not for the time a
  // recursive delete takes), should a process start meanwhile.
  const old = `${outdir}.old-${process.pid}`;
  fs.rmSync(old, { recursive: true, force: true });
  if (fs.existsSync(outdir)) fs.renameSync(outdir, old);
  fs.renameSync(partial, outdir);
  fs.rmSync(old, { recursive: true, force: true });
  const externals = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const imported of output.imports) {
      if (imported.external && !imported.path.startsWith('node:')) externals.add(imported.path);
    }
  }
  const bytes = Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .reduce((sum, [, output]) => sum + output.bytes, 0);
  return { ...target, bytes, externals: [...externals].sort() };
}

/** `npm run build` in every workspace that has one (the dashboard's page); their stdout goes to our stderr. */
async function buildWorkspaces() {
  const child = spawn(
    'npm',
    ['run', 'build', '--workspaces', '--if-present', '--loglevel=warn', '--no-audit', '--no-fund'],
    { cwd: ROOT, stdio: ['ignore', 2, 2] },
  );
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (status) => resolve(status));
  });
  if (code !== 0) throw new Error(`npm run build --workspaces exited with ${code}`);
}

/** Builds everything now and writes the stamp; returns what was built. */
export async function build() {
  const started = Date.now();
  const esbuild = await import('esbuild');
  const [built] = await Promise.all([
    Promise.all(buildTargets().map((target) => bundle(esbuild, target))),
    buildWorkspaces(),
  ]);
  fs.mkdirSync(path.dirname(STAMP_FILE), { recursive: true });
  fs.writeFileSync(
    STAMP_FILE,
    `${JSON.stringify({ builtAt: new Date(started).toISOString(), built }, null, 2)}\n`,
  );
  // The stamp carries the time the build started: a file saved during the build makes the next check stale.
  fs.utimesSync(STAMP_FILE, started / 1000, started / 1000);
  const sizes = built.map((b) => `${b.name} ${(b.bytes / 1024).toFixed(0)} KB`).join(', ');
  log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s: ${sizes}`);
  return built;
}

const LOCK_DIR = path.join(CACHE_DIR, 'build.lock');

/**
 * Runs fn while holding the build lock (a folder holding the owner's pid): builds started at the same
 * time (test files running side by side, `npm run cli` beside `npm start`) take turns instead of
 * writing the same dist/ folders at once. A lock whose owner is gone is taken over.
 */
async function withBuildLock(fn) {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const owner = readPid(path.join(LOCK_DIR, 'pid'));
      // No pid yet: the owner is between mkdir and writing it; give it a moment before calling it gone.
      const ownerGone =
        owner === undefined
          ? Date.now() - fs.statSync(LOCK_DIR, { throwIfNoEntry: false })?.mtimeMs > 5_000
          : !isAlive(owner);
      if (ownerGone) fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    writePid(path.join(LOCK_DIR, 'pid'), process.pid);
    return await fn();
  } finally {
    fs.rmSync(LOCK_DIR, { recursive: true, force: true });
  }
}

/** Builds when the outputs are missing or stale; says why on stderr. One build at a time (withBuildLock). */
export async function ensureBuilt() {
  if (staleReason() === undefined) return false;
  return withBuildLock(async () => {
    // Whoever held the lock before may have just built.
    const reason = staleReason();
    if (reason === undefined) return false;
    log(`building (${reason})`);
    await build();
    return true;
  });
}
