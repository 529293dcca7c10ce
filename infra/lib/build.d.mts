// Types of infra/lib/build.mjs for the TypeScript tests.
export interface BuildTarget {
  /** The package folder's name: ingest, compactor, query, cli. */
  name: string;
  /** Paths relative to the repository root. */
  entry: string;
  /** Worker-thread entries (`src/.../<name>-worker.ts`), bundled to `<outdir>/<name>.js` beside main.js. */
  workers: { name: string; entry: string }[];
  outdir: string;
  main: string;
}
export interface BuiltTarget extends BuildTarget {
  bytes: number;
  /** Bare imports left in the bundle (npm packages), loaded from node_modules at run time. */
  externals: string[];
}
export declare const SOURCE_DIRS: string[];
export declare const STAMP_FILE: string;
/** The esbuild plugin that keeps npm packages (and JavaScript workspaces) external to the bundles. */
export declare const externalsPlugin: import('esbuild').Plugin;
export declare function buildTargets(): BuildTarget[];
export declare function staleReason(): string | undefined;
export declare function build(): Promise<BuiltTarget[]>;
export declare function ensureBuilt(): Promise<boolean>;
