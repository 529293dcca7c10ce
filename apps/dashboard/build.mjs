// Builds the dashboard into dist/: esbuild bundles src/main.ts (with uPlot and @va/client) into app.js and
// src/styles.css (with uPlot's CSS) into app.css, minified, for current browsers; index.html is copied.
// `node build.mjs` builds; `ensureBuilt()` builds only when dist is missing or older than a source file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DIST = path.join(here, 'dist');
const SRC = path.join(here, 'src');
/** Inputs besides src/: a change in them (a new uPlot, the client, the outcome list) makes dist stale too. */
const INPUTS = [
  SRC,
  path.join(here, 'build.mjs'),
  path.join(here, 'package.json'),
  path.join(here, '../../libs/client/src'),
  path.join(here, '../../libs/contracts/src/outcomes.ts'),
];

function newestMtime(p) {
  if (!fs.existsSync(p)) return 0;
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(p).map((name) => newestMtime(path.join(p, name))));
}

export function isStale() {
  const built = path.join(DIST, 'app.js');
  if (!fs.existsSync(built) || !fs.existsSync(path.join(DIST, 'index.html'))) return true;
  return Math.max(...INPUTS.map(newestMtime)) > fs.statSync(built).mtimeMs;
}

/** Builds into a fresh folder and swaps it in, so the service never serves half a build. */
export async function build({ quiet = false } = {}) {
  const { build: esbuild } = await import('esbuild');
  const partial = `${DIST}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  await esbuild({
    entryPoints: { app: path.join(SRC, 'main.ts'), 'app-styles': path.join(SRC, 'styles.css') },
    outdir: partial,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
  });
  fs.renameSync(path.join(partial, 'app-styles.css'), path.join(partial, 'app.css'));
  fs.rmSync(path.join(partial, 'app-styles.js'), { force: true });
  fs.rmSync(path.join(partial, 'app-styles.css.map'), { force: true });
  fs.copyFileSync(path.join(SRC, 'index.html'), path.join(partial, 'index.html'));
  fs.rmSync(DIST, { recursive: true, force: true });
  fs.renameSync(partial, DIST);
  const sizes = ['app.js', 'app.css'].map((name) => {
    const bytes = fs.readFileSync(path.join(DIST, name));
    return `${name} ${(bytes.length / 1024).toFixed(1)} KB (gzip ${(zlib.gzipSync(bytes, { level: 9 }).length / 1024).toFixed(1)} KB)`;
  });
  if (!quiet)
    console.log(`dashboard built into ${path.relative(process.cwd(), DIST) || '.'}: ${sizes.join(', ')}`);
  return DIST;
}

/** Builds when dist is missing or stale (tests, the screenshot script); returns dist's path. */
export async function ensureBuilt(options) {
  return isStale() ? build(options) : DIST;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await build();
}
