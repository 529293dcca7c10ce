// Flat config: typescript-eslint's recommended rules over every workspace, prettier owns formatting.
// On top of them, two families of rules that the compiler does not give us:
// - type-aware promise rules (a promise nobody awaits loses its error, a promise where a callback's
//   return is ignored is the same bug), through typescript-eslint's project service;
// - package boundaries and cycles (eslint-plugin-import-x): a package is imported by its name and
//   its package.json exports, never by a relative path into its folder, and no module imports itself
//   back through a chain. test/lint/boundaries.test.ts proves both fail on planted code. no-cycle skips
//   type-only imports: test/lint/import-cycles.test.ts checks the graph with them.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

export default tseslint.config(
  // npm test runs eslint while the tests run, so passing folders are left out: a build's
  // dist.partial-<pid> (renamed to dist when complete) and dist.old-<pid> (the dist it replaces, removed
  // then), and the faulty files test/lint/boundaries.test.ts plants for a moment (__lint-plant-*; that
  // test lints them with ignores switched off).
  {
    ignores: [
      '**/node_modules/**',
      '.cache/**',
      '.data/**',
      'bench/results/**',
      '**/dist/**',
      '**/dist.partial-*/**',
      '**/dist.old-*/**',
      '**/__lint-plant-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    plugins: { 'import-x': importX },
    settings: {
      // no-cycle parses the modules it follows: with the TypeScript parser, .ts included.
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-relative-packages': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  // Production modules, what the bundles are built from, import no test code: @va/testkit and the test tools
  // are devDependencies, absent from a production install (test/build/production-install.test.ts), and a
  // package's test entry (`@va/store/testing`, `@va/ingest/testing`: every `@va/<name>/testing`) holds test
  // helpers only. test/lint/production-imports.test.ts proves the rule fires.
  {
    files: ['{libs,services,tools,apps}/*/src/**/*.ts'],
    ignores: ['libs/testkit/**', '**/*.test.ts', '**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@va/testkit',
                '@va/testkit/*',
                'vitest',
                'vitest/*',
                'testcontainers',
                'playwright-core',
                'fast-check',
              ],
              message: 'test-only package: production modules must load from `npm ci --omit=dev`',
            },
            {
              group: ['@va/*/testing', '@va/*/testing/*'],
              message: "a package's test entry: test helpers are for tests and test harnesses only",
            },
          ],
        },
      ],
    },
  },
);
