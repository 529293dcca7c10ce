/**
 * Import cycles among our own TypeScript files, type-only imports included. ESLint's import-x/no-cycle
 * (eslint.config.js) refuses value cycles as code is written, but skips `import type` by design (a type
 * import is erased at run time); a type-only cycle still ties two modules together for the reader and
 * the compiler. dependency-cruiser, tried first, did not resolve the workspace packages (their
 * package.json `exports` point at TypeScript sources), so the graph is built with the compiler's own
 * module resolution, which does.
 */
import path from 'node:path';
import ts from 'typescript';

/** File -> the files of ours it imports (or re-exports from), absolute real paths. */
export type ImportGraph = Map<string, string[]>;

/** The import graph of every file the tsconfig includes; node_modules (after symlinks) left out. */
export function importGraph(tsconfigPath: string, fileNames?: readonly string[]): ImportGraph {
  const config = ts.getParsedCommandLineOfConfigFile(
    tsconfigPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`cannot read ${tsconfigPath}`);
  const host = ts.createCompilerHost(config.options);
  const ours = (file: string) => !file.split(path.sep).includes('node_modules');
  const graph: ImportGraph = new Map();
  for (const file of fileNames ?? config.fileNames) {
    const source = ts.createSourceFile(file, ts.sys.readFile(file) ?? '', ts.ScriptTarget.Latest);
    const deps: string[] = [];
    for (const statement of source.statements) {
      const specifier =
        (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
        statement.moduleSpecifier &&
        ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : undefined;
      if (specifier === undefined) continue;
      // A workspace package resolves through its node_modules symlink: the real path is ours.
      const resolved = ts.resolveModuleName(specifier, file, config.options, host).resolvedModule;
      if (!resolved) continue;
      const real = ts.sys.realpath?.(resolved.resolvedFileName) ?? resolved.resolvedFileName;
      if (ours(real)) deps.push(real);
    }
    graph.set(ts.sys.realpath?.(file) ?? file, deps);
  }
  return graph;
}

/** The cycles of a graph: its strongly connected components of more than one file, or a file importing itself. */
export function cyclesOf(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative (a recursive walk would be as deep as the longest import chain).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || edges.includes(frame.node)) cycles.push(component.sort());
    }
  }
  return cycles;
}
