// Builds the publishable package into dist/: JavaScript by tsc (one file per module, ESM), one
// index.d.ts bundled by rollup-plugin-dts with the @va/contracts types inlined (that package is
// private; only @sinclair/typebox, a public package, stays a reference), a package.json of its
// own and the README. Publish with `npm publish libs/client/dist`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

const bundle = await rollup({
  input: join(root, 'src/index.ts'),
  external: (id) => id === '@sinclair/typebox' || id.startsWith('@sinclair/typebox/'),
  plugins: [dts({ respectExternal: true, tsconfig: join(root, 'tsconfig.json') })],
});
await bundle.write({ file: join(dist, 'index.d.ts'), format: 'es' });
await bundle.close();

const source = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const published = {
  name: source.name,
  version: source.version,
  description: source.description,
  license: source.license,
  type: 'module',
  sideEffects: false,
  exports: { '.': { types: './index.d.ts', default: './index.js' } },
  main: './index.js',
  types: './index.d.ts',
  engines: source.engines,
  // Types only: the declarations refer to typebox's Static; the JavaScript imports nothing.
  dependencies: source.dependencies,
};
writeFileSync(join(dist, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
copyFileSync(join(root, 'README.md'), join(dist, 'README.md'));
console.log(`built ${dist}`);
