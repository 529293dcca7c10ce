/**
 * #45 item "a lean production install": `npm ci --omit=dev` (the Dockerfile's production-dependencies stage)
 * installs what the compiled services and the CLI load, and no test or build tool. `npm ls --omit=dev` lists
 * the tree npm computes for that install (the same dependency flags). Every workspace is a production
 * dependency of the root, so whatever a workspace lists under `dependencies` is in it, @va/testkit's included:
 * test-only packages belong in `devDependencies`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildTargets, externalsPlugin } from '@va/infra/build';
import { ROOT } from '@va/infra/paths';
import { scaled } from '@va/testkit/time';

/** Test runners, bundlers, containers and browsers: none may be part of a production install. */
const DEV_ONLY = [
  'vitest',
  'vite',
  'testcontainers',
  'dockerode',
  'playwright-core',
  'tsx',
  'esbuild',
  'rollup',
];

/** Folder (real path) -> package name of every package in the production tree. */
function productionTree(): Map<string, string> {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable', '--loglevel=error'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  const tree = new Map<string, string>();
  for (const dir of out.split('\n').filter(Boolean)) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string };
    tree.set(fs.realpathSync(dir), manifest.name ?? path.basename(dir));
  }
  return tree;
}

/** 'ioredis/built/x' -> 'ioredis', '@fastify/static/y' -> '@fastify/static'. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The folder Node loads a package from for a module in `fromDir` (node_modules lookup, upwards). */
function packageDir(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    if (dir === path.dirname(dir)) return undefined;
  }
}

/** The packages a bundle leaves to node_modules, built as `npm run build` builds it (same externals), in memory. */
async function externalPackages(options: esbuild.BuildOptions): Promise<Set<string>> {
  const result = await esbuild.build({
    ...options,
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [externalsPlugin],
  });
  return new Set(
    Object.values(result.metafile.outputs)
      .flatMap((output) => output.imports)
      .filter((i) => i.external && !i.path.startsWith('node:'))
      .map((i) => packageName(i.path)),
  );
}

/** The imported packages that a production install lacks, for a bundle in `outdir`. */
function missingInProduction(externals: Set<string>, outdir: string, production: Set<string>): string[] {
  return [...externals].filter((name) => {
    const dir = packageDir(name, path.join(ROOT, outdir));
    return dir === undefined || !production.has(dir);
  });
}

describe('production install (npm ci --omit=dev)', { timeout: scaled(120_000) }, () => {
  const tree = productionTree();
  const production = new Set(tree.keys());

  it('#45 item 2: installs no test runner, bundler, container client or browser driver', () => {
    const names = new Set(tree.values());
    expect(names.size).toBeGreaterThan(10);
    expect(DEV_ONLY.filter((name) => names.has(name))).toEqual([]);
  });

  it('#45 item 2: every package the compiled services and CLI import is in the production tree', async () => {
    const targets = buildTargets();
    expect(targets.map((t) => t.name)).toEqual(
      expect.arrayContaining(['cli', 'compactor', 'ingest', 'query']),
    );
    for (const target of targets) {
      const externals = await externalPackages({
        entryPoints: [target.entry, ...target.workers.map((w) => w.entry)].map((e) => path.join(ROOT, e)),
        outdir: path.join(ROOT, target.outdir),
      });
      expect(externals.size, target.name).toBeGreaterThan(0);
      expect(missingInProduction(externals, target.outdir, production), target.name).toEqual([]);
    }
  });

  it('#45 item 2: the check above catches a production module that imports the test kit', async () => {
    const externals = await externalPackages({
      stdin: {
        contents: "export * from '@va/testkit/support';",
        resolveDir: path.join(ROOT, 'services/query/src'),
      },
      outdir: path.join(ROOT, 'services/query/dist'),
    });
    expect(missingInProduction(externals, 'services/query/dist', production)).toContain('vitest');
  });
});
