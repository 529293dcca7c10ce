/**
 * Which code a run measured. The tree changes while engineers work, so a commit id alone does not
 * say it: the result also carries a hash of every source file of the workspaces (libs, services,
 * tools: what the service processes load) as they were when the run started.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '@va/infra/paths';

export interface CodeVersion {
  commit: string;
  /** Files that differ from the commit (modified or untracked), per `git status --porcelain`. */
  changedFiles: number;
  /** sha256 (12 hex digits) over the path and content of every file under libs|services|tools/<name>/src. */
  sourceHash: string;
}

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(full);
    }
  };
  for (const group of ['libs', 'services', 'tools']) {
    const base = path.join(ROOT, group);
    if (!fs.existsSync(base)) continue;
    for (const pkg of fs.readdirSync(base)) {
      const src = path.join(base, pkg, 'src');
      if (fs.existsSync(src)) walk(src);
    }
  }
  return out.sort();
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return '';
  }
}

export function codeVersion(): CodeVersion {
  const hash = createHash('sha256');
  for (const file of sourceFiles())
    hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file));
  const status = git(['status', '--porcelain']);
  return {
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    changedFiles: status === '' ? 0 : status.split('\n').length,
    sourceHash: hash.digest('hex').slice(0, 12),
  };
}
