/**
 * `npx tsx bench/src/summarize-profile.ts <file.cpuprofile>... [--top N]`: self time per area and
 * per function of V8 CPU profiles (those `npm run bench -- --cpu-prof` writes, or any other); frames of
 * compiled bundles are mapped back to their sources where a source map lies beside the bundle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatSummary, summarizeProfile, type CpuProfile } from './cpuprofile';
import { withOriginalSources } from './profile-sources';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
});
if (positionals.length === 0) {
  process.stderr.write('usage: npx tsx bench/src/summarize-profile.ts <file.cpuprofile>... [--top N]\n');
  process.exit(2);
}
for (const file of positionals) {
  const profile = withOriginalSources(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile);
  process.stdout.write(
    `${formatSummary(path.basename(file), summarizeProfile(profile, Number(values.top)))}\n\n`,
  );
}
