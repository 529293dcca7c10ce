// The package's runtime face for the query service: where the built page is. Building needs esbuild (a
// devDependency), so ensureBuilt loads build.mjs only when asked.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const dashboardDist = path.join(path.dirname(fileURLToPath(import.meta.url)), 'dist');

export async function ensureDashboardBuilt(options) {
  const { ensureBuilt } = await import('./build.mjs');
  return ensureBuilt(options);
}
