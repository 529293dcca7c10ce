// `npm run cli -- <command>`: runs the compiled CLI (tools/cli/dist), building it first when a source changed.
// Everything the build says goes to stderr: `root-key create` prints the key alone on stdout's first line.
import { ensureNodeModules } from './lib/install.mjs';
import { ensureBuilt } from './lib/build.mjs';
import { ROOT } from './lib/paths.mjs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

ensureNodeModules();
await ensureBuilt();
// Same process, same argv: the CLI reads process.argv.slice(2) as if it had been started directly.
await import(pathToFileURL(path.join(ROOT, 'tools', 'cli', 'dist', 'main.js')).href);
