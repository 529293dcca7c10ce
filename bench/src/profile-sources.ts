/**
 * Maps the frames of a CPU profile of a compiled service (services/<name>/dist/*.js, esbuild bundles
 * with linked source maps) back to their TypeScript sources, so that the summary attributes time to
 * libs/store, services/query, ... as it does for a process run from source. Frames of files without
 * a map (node_modules, Node's internals) are left as they are.
 */
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CpuProfile } from './cpuprofile';

/** The source map beside a bundle (`<file>.map`), loaded once per file; null when there is none. */
function mapLoader(): (url: string) => { map: SourceMap; dir: string } | null {
  const maps = new Map<string, { map: SourceMap; dir: string } | null>();
  return (url) => {
    if (!url.startsWith('file://') || !url.endsWith('.js')) return null;
    let entry = maps.get(url);
    if (entry === undefined) {
      const file = fileURLToPath(url);
      try {
        const payload = JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<
          typeof SourceMap
        >[0];
        entry = { map: new SourceMap(payload), dir: path.dirname(file) };
      } catch {
        entry = null;
      }
      maps.set(url, entry);
    }
    return entry;
  };
}

/** The profile with every frame that a source map covers pointing at its original file and line. */
export function withOriginalSources(profile: CpuProfile): CpuProfile {
  const mapOf = mapLoader();
  const nodes = profile.nodes.map((node) => {
    const { url, lineNumber, columnNumber } = node.callFrame;
    const found = mapOf(url);
    if (!found || lineNumber < 0) return node;
    const entry = found.map.findEntry(lineNumber, columnNumber ?? 0) as {
      originalSource?: string;
      originalLine?: number;
    };
    if (!entry.originalSource) return node;
    const source = entry.originalSource.startsWith('file://')
      ? entry.originalSource
      : pathToFileURL(path.resolve(found.dir, entry.originalSource)).href;
    return {
      ...node,
      callFrame: { ...node.callFrame, url: source, lineNumber: entry.originalLine ?? lineNumber },
    };
  });
  return { ...profile, nodes };
}
