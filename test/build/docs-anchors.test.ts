/**
 * Code, tests and docs cite sections of the docs by anchor (`docs/api.md#errors`, `[x](rollups.md#retention)`):
 * every cited anchor exists in the file it names, as an explicit `<a id="…">` or as a heading's slug, so a
 * renamed heading cannot leave citations pointing at nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';

const SCANNED_DIRS = ['libs', 'services', 'tools', 'apps', 'infra', 'bench', 'test', 'docs'];
const SKIPPED = new Set(['node_modules', 'dist', '.cache', '.data', 'fixtures']);
const EXTENSIONS = /\.(ts|mts|mjs|js|lua|md)$/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourceFiles(full);
    return EXTENSIONS.test(entry.name) ? [full] : [];
  });
}

/** GitHub's slug of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown file defines: explicit ids and heading slugs (outside code blocks). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(match[1]!);
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = !inCode && /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(slugOf(heading[1]!));
  }
  return anchors;
}

/**
 * The (doc, anchor) pairs a text cites: `docs/<name>.md#a`, continued by `, #b` (also across a
 * comment's line break), and Markdown links `](<name>.md#a)` relative to `docs/`.
 */
export function citationsOf(text: string, inDocs: boolean): { doc: string; anchor: string }[] {
  const cited: { doc: string; anchor: string }[] = [];
  for (const match of text.matchAll(/docs\/([\w-]+\.md)((?:#[\w-]+)(?:,\s*(?:(?:\*|\/\/)\s*)?#[\w-]+)*)/g))
    for (const anchor of match[2]!.matchAll(/#([\w-]+)/g)) cited.push({ doc: match[1]!, anchor: anchor[1]! });
  if (inDocs)
    for (const match of text.matchAll(/\]\(([\w-]+\.md)#([\w-]+)\)/g))
      cited.push({ doc: match[1]!, anchor: match[2]! });
  return cited;
}

describe('citations of doc sections', () => {
  it('reads headings and explicit anchors, and citations with continued anchors', () => {
    expect(
      anchorsOf('## `GET /v1/x.y`\n<a id="query"></a>\n### Rows and gap filling\n```\n# no\n```'),
    ).toEqual(new Set(['get-v1xy', 'query', 'rows-and-gap-filling']));
    expect(citationsOf('(docs/api.md#rows,\n * #order-and-limit) [a](api.md#errors)', true)).toEqual([
      { doc: 'api.md', anchor: 'rows' },
      { doc: 'api.md', anchor: 'order-and-limit' },
      { doc: 'api.md', anchor: 'errors' },
    ]);
  });

  it('every cited anchor exists in the doc it names', () => {
    const anchors = new Map<string, Set<string>>();
    const anchorsIn = (doc: string): Set<string> | undefined => {
      const file = path.join(ROOT, 'docs', doc);
      if (!anchors.has(doc) && fs.existsSync(file))
        anchors.set(doc, anchorsOf(fs.readFileSync(file, 'utf8')));
      return anchors.get(doc);
    };
    const files = [
      ...SCANNED_DIRS.flatMap((dir) => sourceFiles(path.join(ROOT, dir))),
      path.join(ROOT, 'README.md'),
    ];
    const broken: string[] = [];
    let count = 0;
    for (const file of files) {
      const relative = path.relative(ROOT, file);
      const text = fs.readFileSync(file, 'utf8');
      for (const { doc, anchor } of citationsOf(text, relative.startsWith('docs/'))) {
        count++;
        if (!anchorsIn(doc)?.has(anchor)) broken.push(`${relative}: docs/${doc}#${anchor}`);
      }
    }
    expect(count).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });
});
