/**
 * The publishable package (npm run build -w @va/client → libs/client/dist, which `npm run build`
 * runs with the other workspaces' builds): plain ESM JavaScript that
 * Node runs without TypeScript tooling and that touches no Node-only API, one self-contained
 * declaration file (only @sinclair/typebox referenced), and a package.json with exports and types.
 */
import { execFile } from 'node:child_process';
import {
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '@va/infra/build';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const require = createRequire(import.meta.url);
let consumer: string;

beforeAll(async () => {
  // The repository's build (infra/lib/build.mjs) runs this package's `build` script with the others',
  // and only when a source changed: the test run builds once for every test that needs dist/ folders.
  await ensureBuilt();
  // A project that installed the package: node_modules/@va/client is the built dist, nothing else of ours.
  consumer = mkdtempSync(join(tmpdir(), 'va-client-consumer-'));
  mkdirSync(join(consumer, 'node_modules/@va'), { recursive: true });
  mkdirSync(join(consumer, 'node_modules/@sinclair'), { recursive: true });
  symlinkSync(dist, join(consumer, 'node_modules/@va/client'));
  // typebox's exports hide its package.json: walk up from its entry point to the package folder.
  const entry = require.resolve('@sinclair/typebox', { paths: [root] });
  const typebox = entry.slice(
    0,
    entry.lastIndexOf('/node_modules/@sinclair/typebox/') + '/node_modules/@sinclair/typebox'.length,
  );
  symlinkSync(typebox, join(consumer, 'node_modules/@sinclair/typebox'));
});
afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

it('has a package.json with exports and types, and the README', () => {
  const pkg = JSON.parse(readFileSync(join(dist, 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(pkg).toMatchObject({
    name: '@va/client',
    type: 'module',
    exports: { '.': { types: './index.d.ts', default: './index.js' } },
    types: './index.d.ts',
  });
  expect(readdirSync(dist)).toEqual(expect.arrayContaining(['README.md', 'index.js', 'index.d.ts']));
  expect(readdirSync(dist).some((f) => f.includes('test') || f.startsWith('testing'))).toBe(false);
});

it('uses no Node-only module or global, and imports nothing but its own files', () => {
  for (const file of readdirSync(dist).filter((f) => f.endsWith('.js'))) {
    const code = readFileSync(join(dist, file), 'utf8');
    const imports = [...code.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(
      imports.every((i) => i!.startsWith('./') && i!.endsWith('.js')),
      `${file}: ${imports.join(', ')}`,
    ).toBe(true);
    expect(code, file).not.toMatch(/\b(require\(|process\.|Buffer\b|node:)/);
  }
});

it('runs in plain Node from the installed package', async () => {
  const script = `
    import { createClient, ApiError } from '@va/client';
    const rows = [{ valid: 1, total: 1 }];
    const fetch = async (url) => url.searchParams.get('apiId') === 'a'
      ? new Response(JSON.stringify(rows), { headers: { 'x-precision': 'day', 'x-request-id': 'req_1' } })
      : new Response(JSON.stringify({ meta: { requestId: 'req_2' }, error: { title: 'Not Found', detail: 'no', status: 404, type: 'x/not_found', errors: [] } }), { status: 404 });
    const client = createClient({ baseUrl: 'http://analytics.test', token: 't', fetch });
    const ok = await client.getVerifications({ apiId: 'a', tag: ['x', 'y'] });
    const failed = await client.getVerifications({ apiId: 'b' }).catch((e) => e);
    console.log(JSON.stringify({ ok, failed: failed instanceof ApiError && [failed.status, failed.kind, failed.requestId] }));
  `;
  writeFileSync(join(consumer, 'run.mjs'), script);
  const { stdout } = await run(process.execPath, ['run.mjs'], { cwd: consumer });
  expect(JSON.parse(stdout)).toEqual({
    ok: { datapoints: [{ valid: 1, total: 1 }], precision: 'day', requestId: 'req_1', timeZone: 'UTC' },
    failed: [404, 'not_found', 'req_2'],
  });
});

it('type-checks a browser consumer against the bundled declarations alone', async () => {
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2022', 'DOM'],
        types: [],
        strict: true,
        noEmit: true,
      },
      files: ['consumer.ts'],
    }),
  );
  writeFileSync(
    join(consumer, 'consumer.ts'),
    `
    import { createClient, type Datapoint, type GetVerificationsParams } from '@va/client';
    const client = createClient({ baseUrl: 'https://analytics.example', token: () => 'read-token' });
    const params: GetVerificationsParams = { apiId: 'api_1', groupBy: ['key', 'day'], orderBy: 'total', limit: 10 };
    const first: Promise<Datapoint | undefined> = client.getVerifications(params).then((r) => r.datapoints[0]);
    // @ts-expect-error apiId is required
    const missing: GetVerificationsParams = { groupBy: ['day'] };
    // @ts-expect-error groupBy takes the contract's values only
    const wrong: GetVerificationsParams = { apiId: 'a', groupBy: ['week'] };
    // @ts-expect-error there is no datapoint field "count"
    const count = (d: Datapoint) => d.count;
    export { first, missing, wrong, count };
    `,
  );
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  const result = await run(process.execPath, [tsc, '-p', consumer]).then(
    () => ({ code: 0, out: '' }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
  expect(result.out).toBe('');
  expect(result.code).toBe(0);
});
