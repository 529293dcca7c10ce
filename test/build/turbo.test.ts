/**
 * turbo.json against the scripts it runs, without running turbo: every task names a script that exists (turbo
 * silently skips a task whose package has no such script, so a renamed script would make `npm test` check
 * nothing), the tasks infra/test.mjs asks turbo for are defined, a cached task's declared output is the file its
 * script writes, and turbo's local cache stays out of git.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';

interface TaskDefinition {
  inputs?: string[];
  outputs?: string[];
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as unknown;
const turbo = readJson('turbo.json') as { tasks: Record<string, TaskDefinition> };
const rootScripts = (readJson('package.json') as { scripts: Record<string, string> }).scripts;

/** Every workspace's name and scripts (the root package.json's `workspaces` globs are `<dir>/*` or a folder). */
function workspaces(): Map<string, Record<string, string>> {
  const globs = (readJson('package.json') as { workspaces: string[] }).workspaces;
  const found = new Map<string, Record<string, string>>();
  for (const glob of globs) {
    const dirs = glob.endsWith('/*')
      ? fs.readdirSync(path.join(ROOT, glob.slice(0, -2))).map((name) => path.join(glob.slice(0, -2), name))
      : [glob];
    for (const dir of dirs) {
      const manifest = path.join(dir, 'package.json');
      if (!fs.existsSync(path.join(ROOT, manifest))) continue;
      const pkg = readJson(manifest) as { name: string; scripts?: Record<string, string> };
      found.set(pkg.name, pkg.scripts ?? {});
    }
  }
  return found;
}

/** The task names infra/test.mjs hands to `turbo run` (the string literals after `...turbo,`). */
function tasksRunByNpmTest(): string[] {
  const source = fs.readFileSync(path.join(ROOT, 'infra/test.mjs'), 'utf8');
  const calls = [...source.matchAll(/\[\.\.\.turbo,([^\]]*)\]/g)];
  return calls.flatMap((call) => [...call[1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!));
}

describe('turbo.json', () => {
  it('every task runs a script that exists: //#x in the root package.json, pkg#x in that workspace', () => {
    const packages = workspaces();
    const missing: string[] = [];
    for (const task of Object.keys(turbo.tasks)) {
      const [owner, script] = task.includes('#') ? task.split('#') : [undefined, task];
      if (owner === '//') {
        if (!rootScripts[script!]) missing.push(task);
      } else if (owner !== undefined) {
        if (!packages.get(owner)?.[script!]) missing.push(task);
      } else if (![...packages.values()].some((scripts) => scripts[script!])) {
        missing.push(task);
      }
    }
    expect(missing).toEqual([]);
  });

  it('a root task does not call turbo itself (turbo would run it again, without end)', () => {
    const loops = Object.keys(turbo.tasks)
      .filter((task) => task.startsWith('//#'))
      .filter((task) => /\bturbo\b/.test(rootScripts[task.slice(3)] ?? ''));
    expect(loops).toEqual([]);
  });

  it('npm test asks turbo only for root tasks that turbo.json defines', () => {
    const asked = tasksRunByNpmTest();
    expect(asked).toEqual(expect.arrayContaining(['check', 'format:check', 'test:unit']));
    expect(asked.filter((task) => !turbo.tasks[`//#${task}`])).toEqual([]);
  });

  it("the unit tests' report, which npm test counts, is the output turbo restores from its cache", () => {
    const written = /--outputFile\.json=(\S+)/.exec(rootScripts['test:unit'] ?? '')?.[1];
    expect(written).toBeDefined();
    expect(turbo.tasks['//#test:unit']?.outputs).toContain(written);
  });

  it("turbo's local cache (.turbo/) is ignored by git", () => {
    const ignored = fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toContain('.turbo/');
  });
});
