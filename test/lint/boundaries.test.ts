/**
 * Proof that the repository's ESLint config (eslint.config.js) stops the two architecture faults
 * the compiler lets through: a relative import into another package's folder, and an import cycle.
 * Planted files are written into a throwaway package of their own under test/lint (on disk, so that
 * the resolver sees them like real code) and removed afterwards. Not inside libs/ or services/: a change
 * there would make the services' bundles stale while the integration tests run them (infra/lib/build.mjs
 * staleReason). eslint.config.js, tsconfig.json and .prettierignore leave such folders out
 * (npm test runs the static checks while the tests run). Only the type-aware rules are switched off
 * here: they need the whole TypeScript program (tens of seconds) and are not what this test is about.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';
import { scaled } from '@va/testkit/time';

const dir = path.join(ROOT, 'test/lint', `__lint-plant-${process.pid}`);
const files: Record<string, string> = {
  // A package (like every workspace under libs/): the relative import below leaves it for another one.
  'package.json': '{ "name": "@va/lint-plant", "private": true, "type": "module" }\n',
  // Reaches into @va/config's folder instead of importing '@va/config'.
  // (the path is assembled so that a grep for cross-package paths does not find this test)
  'relative.ts': `import { loadConfig } from '${'../'.repeat(3)}libs/config/src/index';\nexport const load = loadConfig;\n`,
  // a -> b -> a.
  'cycle-a.ts': "import { b } from './cycle-b';\nexport const a = (): number => b() + 1;\n",
  'cycle-b.ts':
    "import { a } from './cycle-a';\nexport const b = (): number => (Math.random() > 2 ? a() : 0);\n",
  // The same cycle's shape without the cycle, and the package by its name: both clean.
  'clean-a.ts':
    "import { c } from './clean-c';\nimport { loadConfig } from '@va/config';\nexport const a = (): number => c() + (loadConfig ? 1 : 0);\n",
  'clean-c.ts': 'export const c = (): number => 1;\n',
};

let eslint: ESLint;
beforeAll(() => {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  eslint = new ESLint({
    cwd: ROOT,
    // The repository's config ignores planted folders (so that `eslint .`, which npm test runs while
    // the tests run, never sees them): here they are the very files to lint.
    ignore: false,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { project: false, projectService: false } },
        rules: {
          '@typescript-eslint/no-floating-promises': 'off',
          '@typescript-eslint/no-misused-promises': 'off',
          '@typescript-eslint/await-thenable': 'off',
        },
      },
    ],
  });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function ruleIds(name: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintFiles([path.join(dir, name)]);
  return result!.messages.map((m) => m.ruleId);
}

// Loading ESLint, typescript-eslint and the resolver takes seconds on a busy machine: not a speed test.
describe('eslint.config.js', { timeout: scaled(120_000) }, () => {
  it('refuses a relative import into another package', async () => {
    expect(await ruleIds('relative.ts')).toContain('import-x/no-relative-packages');
  });

  it('refuses an import cycle, from either side', async () => {
    expect(await ruleIds('cycle-a.ts')).toContain('import-x/no-cycle');
    expect(await ruleIds('cycle-b.ts')).toContain('import-x/no-cycle');
  });

  it('accepts the same code through the package name and without the cycle', async () => {
    expect(await ruleIds('clean-a.ts')).toEqual([]);
    expect(await ruleIds('clean-c.ts')).toEqual([]);
  });
});
