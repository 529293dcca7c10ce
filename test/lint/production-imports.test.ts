/**
 * #45 item 2: eslint.config.js refuses a test-only import (@va/testkit, vitest, a package's `/testing` entry
 * such as @va/store/testing, ...) in a production module, the code the bundles are built from, and allows it
 * in tests and test harnesses. Linted as text under a made-up path (nothing is written into the packages); the
 * type-aware rules are off, as in boundaries.test.ts.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';
import { scaled } from '@va/testkit/time';

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({
    cwd: ROOT,
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

async function ruleIds(code: string, file: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.map((m) => m.ruleId);
}

const testkit = "import { waitFor } from '@va/testkit/support';\nexport const w = waitFor;\n";
const vitest = "import { expect } from 'vitest';\nexport const e = expect;\n";
const storeTesting = "import { deletePrefix } from '@va/store/testing';\nexport const d = deletePrefix;\n";
const ingestTesting = "import { seedEvents } from '@va/ingest/testing';\nexport const s = seedEvents;\n";

describe('eslint.config.js: no test code in production modules', { timeout: scaled(120_000) }, () => {
  it('refuses @va/testkit and vitest in a service, a library and the CLI', async () => {
    expect(await ruleIds(testkit, 'services/query/src/__plant.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(vitest, 'libs/store/src/__plant.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(testkit, 'tools/cli/src/commands/__plant.ts')).toContain('no-restricted-imports');
  });

  it("refuses a package's test entry (@va/store/testing, @va/ingest/testing) in a production module", async () => {
    expect(await ruleIds(storeTesting, 'services/query/src/__plant.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(ingestTesting, 'tools/cli/src/rebuild/__plant.ts')).toContain(
      'no-restricted-imports',
    );
    expect(await ruleIds(storeTesting, 'services/compactor/src/__plant.ts')).toContain(
      'no-restricted-imports',
    );
  });

  it('allows them in tests, test harnesses and the test kit itself', async () => {
    expect(await ruleIds(testkit, 'services/query/src/__plant.int.test.ts')).toEqual([]);
    expect(await ruleIds(vitest, 'services/query/src/testing/__plant.ts')).toEqual([]);
    expect(await ruleIds(vitest, 'libs/testkit/src/__plant.ts')).toEqual([]);
    expect(await ruleIds(storeTesting, 'services/ingest/test/__plant.int.test.ts')).toEqual([]);
    expect(await ruleIds(ingestTesting, 'services/query/src/testing/__plant.ts')).toEqual([]);
  });
});
