/**
 * docs/benchmarks.md is one page a user reads: the current results, the commands and the method. Its
 * figures are copied from the committed result files in bench/results/, never typed in: every file it
 * names exists, and every table row under "Current results" is a row of a file its subsection names.
 * The dated log lives in docs/benchmarks-history.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';

const DOC = fs.readFileSync(path.join(ROOT, 'docs', 'benchmarks.md'), 'utf8');
const MAX_LINES = 250;

/** The result files a text names: `bench/results/<name>.<ext>`. */
function resultFiles(text: string): string[] {
  return [...new Set([...text.matchAll(/bench\/results\/([\w.-]+\.[a-z]+)/g)].map((m) => m[1]!))];
}

/** The "### " subsections of the "## Current results" section, each with its text. */
function currentResultSections(text: string): { title: string; body: string }[] {
  const section = text.split(/^## /m).find((part) => part.startsWith('Current results'));
  if (section === undefined) return [];
  return section
    .split(/^### /m)
    .slice(1)
    .map((part) => ({ title: part.slice(0, part.indexOf('\n')), body: part }));
}

describe('docs/benchmarks.md', () => {
  it(`is one page: under ${MAX_LINES} lines`, () => {
    expect(DOC.split('\n').length).toBeLessThan(MAX_LINES);
  });

  it('names only result files that exist in bench/results/', () => {
    const named = resultFiles(DOC);
    expect(named.length).toBeGreaterThan(0);
    const missing = named.filter((name) => !fs.existsSync(path.join(ROOT, 'bench', 'results', name)));
    expect(missing).toEqual([]);
  });

  it('shows the full and the quick run, each table row copied from the file its subsection names', () => {
    const sections = currentResultSections(DOC);
    expect(sections.map((s) => s.title)).toEqual(expect.arrayContaining(['Full run', 'Quick run']));
    for (const { title, body } of sections) {
      const files = resultFiles(body).filter((name) =>
        fs.existsSync(path.join(ROOT, 'bench', 'results', name)),
      );
      const rows = body.split('\n').filter((line) => line.startsWith('|'));
      if (rows.length === 0) continue;
      expect(files, `"${title}" names no result file`).not.toEqual([]);
      const sources = files.map((name) => fs.readFileSync(path.join(ROOT, 'bench', 'results', name), 'utf8'));
      const lines = new Set(sources.flatMap((source) => source.split('\n')));
      const unbacked = rows.filter((row) => !lines.has(row));
      expect(unbacked, `rows of "${title}" found in none of ${files.join(', ')}`).toEqual([]);
    }
  });
});
