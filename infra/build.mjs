// `npm run build`: bundles the services and the CLI into their dist/ folders, then runs every workspace's own
// `build` script (docs/deploy.md). `node infra/build.mjs --if-stale` builds only when a source changed.
import { ensureNodeModules } from './lib/install.mjs';
import { build, ensureBuilt } from './lib/build.mjs';

ensureNodeModules();
if (process.argv.includes('--if-stale')) await ensureBuilt();
else await build();
