/** Absolute path of the built dashboard (index.html, app.js, app.css); `npm run build` writes it. */
export declare const dashboardDist: string;
/** Builds the dashboard when dist is missing or older than its sources; resolves with dashboardDist. */
export declare function ensureDashboardBuilt(options?: { quiet?: boolean }): Promise<string>;
/** The shape of the page's `window.__dashboard` (what it shows), for browser tests. */
export type { DashboardDebug } from './src/debug';
