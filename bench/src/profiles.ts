/** The CPU profiles of a --cpu-prof run, summarised for the results. */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '@va/infra/paths';
import { summarizeProfile, type CpuProfile } from './cpuprofile';
import { withOriginalSources } from './profile-sources';
import type { ProfileResult } from './results';

/**
 * Self-time summaries of the profiles the services wrote on exit (the files stay, for DevTools):
 * per process directory the busiest profile, which is the main thread's (a worker thread writes a
 * profile of its own beside it). Frames of the compiled services are mapped back to their sources.
 */
export function summarizeProfiles(dir: string): ProfileResult[] {
  const labels = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  return labels.flatMap((label) => {
    const files = fs.readdirSync(path.join(dir, label)).filter((f) => f.endsWith('.cpuprofile'));
    const summaries = files.map((f) => {
      const file = path.join(dir, label, f);
      const profile = withOriginalSources(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile);
      return { file: path.relative(ROOT, file), summary: summarizeProfile(profile, 15) };
    });
    summaries.sort((a, b) => b.summary.busyMs - a.summary.busyMs);
    return summaries.slice(0, 1);
  });
}
