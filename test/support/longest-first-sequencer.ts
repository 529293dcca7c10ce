// Test files in order of expected duration, longest first: with a few files at a time, a long file that starts
// last keeps one lane busy while the others idle (the makespan of a list schedule is best when the longest jobs
// go first). vitest's own order does that from its results cache, which a clean clone (CI) does not have; it
// then runs the largest files first, and file size says little about how long a kill test runs. So the
// durations of a clean-clone run are committed (test/durations.json, written by `node test/support/
// record-durations.mjs` from the report of `npm test`), and vitest's order decides among files not listed.
import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS = path.join(import.meta.dirname, '..', 'durations.json');

/** Path from the root -> seconds (a file of two projects: its longer run). */
function readDurations(): Map<string, number> {
  try {
    const table = JSON.parse(fs.readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
    return new Map(Object.entries(table));
  } catch {
    return new Map();
  }
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const root = this.ctx.config.root;
    const expected = (spec: TestSpecification) => durations.get(path.relative(root, spec.moduleId)) ?? 0;
    // Stable: files without a recorded duration keep vitest's order among themselves, after the listed ones.
    const base = await super.sort(files);
    return base
      .map((spec, index) => ({ spec, index, seconds: expected(spec) }))
      .sort((a, b) => b.seconds - a.seconds || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
