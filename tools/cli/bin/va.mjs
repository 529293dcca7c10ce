#!/usr/bin/env node
// `npx va <command>`: the compiled CLI (tools/cli/dist/main.js), the same program as `npm run cli -- <command>`
// without its install and build check. A launcher in git rather than a "bin" pointing into dist/: npm links a
// bin only when its file exists at install time, and in a clean clone dist/ is built after the install, so
// `npx va` would have found no local bin and fetched an unrelated package of that name from the registry.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/main.js', import.meta.url);
if (!fs.existsSync(fileURLToPath(main))) {
  process.stderr.write(
    `${fileURLToPath(main)} is missing: run \`npm run build\` first (or use \`npm run cli --\`)\n`,
  );
  process.exit(1);
}
await import(main.href);
