// Writes test/durations.json (the order of test/support/longest-first-sequencer.ts) from the report of the
// last `npm test` (.cache/vitest-report.json, and the unit tests' .cache/vitest-unit-report.json where turbo ran
// them): every file that took 5 s or more, in seconds. Record it from a
// clean-clone run, whose durations a warm machine's (bundles built, servers up) do not match:
//   node test/support/record-durations.mjs [<root of the clone that ran npm test>]
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const ran = path.resolve(process.argv[2] ?? ROOT);
const reports = ['vitest-report.json', 'vitest-unit-report.json']
  .map((name) => path.join(ran, '.cache', name))
  .filter((file, n) => n === 0 || fs.existsSync(file))
  .map((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
const table = {};
for (const file of reports.flatMap((report) => report.testResults)) {
  const seconds = Math.round((file.endTime - file.startTime) / 1000);
  if (seconds < 5) continue;
  // The JSON report does not name the project: a file of two projects (integration and cluster) keeps its longer run.
  const relative = path.relative(ran, file.name);
  table[relative] = Math.max(seconds, table[relative] ?? 0);
}
const sorted = Object.fromEntries(Object.entries(table).sort(([, a], [, b]) => b - a));
fs.writeFileSync(path.join(ROOT, 'test', 'durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files of 5 s or more`);
