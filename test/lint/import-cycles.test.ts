/**
 * No import cycle among our files, type-only imports included (import-cycles.ts says why ESLint's
 * no-cycle is not enough), and proof that the check finds one: a planted type-only cycle, written for
 * a moment under test/lint (tsconfig.json, eslint.config.js and .prettierignore leave __lint-plant-*
 * folders out).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';
import { cyclesOf, importGraph, type ImportGraph } from './import-cycles';
import { scaled } from '@va/testkit/time';

const TSCONFIG = path.join(ROOT, 'tsconfig.json');

describe('cyclesOf', () => {
  const graph = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

  it('finds a cycle through any number of files, and a file importing itself', () => {
    expect(cyclesOf(graph({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }))).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(graph({ a: ['a'], b: [] }))).toEqual([['a']]);
    expect(cyclesOf(graph({ a: ['b'], b: ['a'], c: ['d'], d: ['c', 'a'] }))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('finds none in a graph without one (shared imports are not cycles)', () => {
    expect(cyclesOf(graph({ a: ['b', 'c'], b: ['c'], c: [], d: ['a', 'c'] }))).toEqual([]);
  });
});

describe('the repository', { timeout: scaled(120_000) }, () => {
  it('has no import cycle, type-only imports and package entry points included', () => {
    const g = importGraph(TSCONFIG);
    // The check sees across packages: a service's import of @va/core lands on libs/core's sources.
    const query = [...g].find(([file]) => file.endsWith('services/query/src/server.ts'));
    expect(query?.[1].some((dep) => dep.includes(`${path.sep}libs${path.sep}`))).toBe(true);
    expect(cyclesOf(g).map((cycle) => cycle.map((file) => path.relative(ROOT, file)))).toEqual([]);
  });
});

describe('a planted type-only cycle', { timeout: scaled(120_000) }, () => {
  const dir = path.join(ROOT, 'test/lint', `__lint-plant-${process.pid}-types`);
  const files: Record<string, string> = {
    'a.ts': "import type { B } from './b';\nexport interface A {\n  b?: B;\n}\n",
    'b.ts': "import type { A } from './a';\nexport interface B {\n  a?: A;\n}\n",
  };
  beforeAll(() => {
    fs.mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is found', () => {
    const planted = Object.keys(files).map((name) => path.join(dir, name));
    expect(cyclesOf(importGraph(TSCONFIG, planted))).toEqual([planted.map((f) => fs.realpathSync(f))]);
  });
});
