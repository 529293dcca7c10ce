/**
 * #45: the workspace package graph as turbo reads it. turbo counts a devDependency as an edge, so a package
 * whose tests import @va/testkit while testkit imports that package is a cycle (turbo warns "Circular
 * package dependency detected" and forbids `^build`-style tasks). Checked from the package.json files:
 * no cycle over dependencies + devDependencies, and every workspace (the root too: test/, bench/) lists each
 * of our packages its files import, tests included, so the graph turbo sees is the real one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as unknown;

/** Every workspace folder ('' for the root) and its manifest. */
function manifests(): Map<string, Manifest> {
  const globs = (readJson('package.json') as { workspaces: string[] }).workspaces;
  const found = new Map<string, Manifest>([['', readJson('package.json') as Manifest]]);
  for (const glob of globs) {
    const dirs = glob.endsWith('/*')
      ? fs.readdirSync(path.join(ROOT, glob.slice(0, -2))).map((name) => path.join(glob.slice(0, -2), name))
      : [glob];
    for (const dir of dirs)
      if (fs.existsSync(path.join(ROOT, dir, 'package.json')))
        found.set(dir, readJson(path.join(dir, 'package.json')) as Manifest);
  }
  return found;
}

const ours = (deps: Record<string, string> | undefined) =>
  Object.keys(deps ?? {}).filter((n) => n.startsWith('@va/'));

/** A cycle of package names over the given edges, or null. */
export function findCycle(edges: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

/** The workspaces' edges: dependencies and devDependencies on our packages (the root is no package's). */
function packageEdges(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const [dir, m] of manifests())
    if (dir !== '') edges.set(m.name, [...ours(m.dependencies), ...ours(m.devDependencies)]);
  return edges;
}

/** Source files git knows of (tracked), without built output. */
function sourceFiles(): string[] {
  return execFileSync('git', ['ls-files', '*.ts', '*.mjs', '*.js'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !f.includes('/dist/') && fs.existsSync(path.join(ROOT, f)));
}

describe('the package graph', () => {
  it('finds a cycle through a devDependency (the check can fail)', () => {
    const planted = new Map([
      ['@va/store', ['@va/core', '@va/testkit']],
      ['@va/testkit', ['@va/store']],
      ['@va/core', []],
    ]);
    expect(findCycle(planted)).toEqual(['@va/store', '@va/testkit', '@va/store']);
  });

  it('has no cycle over dependencies and devDependencies', () => {
    expect(findCycle(packageEdges())).toBeNull();
  });

  it("lists in each package.json every package of ours that the package's files import", () => {
    const all = manifests();
    const dirs = [...all.keys()].filter((d) => d !== '').sort((a, b) => b.length - a.length);
    const missing: string[] = [];
    for (const file of sourceFiles()) {
      const dir = dirs.find((d) => file.startsWith(`${d}/`)) ?? '';
      const m = all.get(dir)!;
      const listed = new Set([...ours(m.dependencies), ...ours(m.devDependencies), m.name]);
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      // Import and export declarations at the start of a line (not examples inside strings).
      for (const [, name] of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(@va\/[a-z-]+)[^']*'/gm))
        if (!listed.has(name!)) missing.push(`${dir || '(root)'}: ${name} <- ${file}`);
    }
    expect(missing).toEqual([]);
  });
});
