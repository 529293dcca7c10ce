/**
 * #45 item 3: the CLI as a real binary. `@va/cli`'s package.json names a bin `va` (tools/cli/bin/va.mjs, a
 * launcher of the compiled tools/cli/dist/main.js), which npm links into node_modules/.bin at install time, so
 * that after `npm run build` `npx va --help` works from the repository root; `npm run cli --` stays. The setup
 * file has built the bundles. npx runs offline: a missing local bin fails here instead of fetching an
 * unrelated package named `va` from the registry.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';

function run(command: string, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      command,
      args,
      { cwd: ROOT, env: { ...process.env, npm_config_offline: 'true' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('the va binary', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'tools/cli/package.json'), 'utf8')) as {
    bin?: Record<string, string>;
  };

  it('#45 item 3: @va/cli names an executable bin va with a node shebang, linked into node_modules/.bin', () => {
    expect(pkg.bin?.va).toBe('bin/va.mjs');
    const launcher = path.join(ROOT, 'tools/cli', pkg.bin!.va!);
    expect(fs.readFileSync(launcher, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(fs.statSync(launcher).mode & 0o111).not.toBe(0);
    expect(fs.realpathSync(path.join(ROOT, 'node_modules/.bin/va'))).toBe(fs.realpathSync(launcher));
  });

  it('#45 item 3: npx va --help from the repository root prints the usage, named va', async () => {
    const { code, stdout, stderr } = await run('npx', ['va', '--help']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('Usage: va [options] [command]');
    expect(stdout).toContain('root-key');
    const sub = await run('npx', ['va', 'root-key', 'create', '--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('Usage: va root-key create');
  });

  it('#45 item 3: npx va passes the CLI exit code through (2 for a usage error)', async () => {
    const { code, stderr } = await run('npx', ['va', 'no-such-command']);
    expect(code).toBe(2);
    expect(stderr).toContain('Usage: va');
  });

  it('#45 item 3: npm run cli -- still runs the same CLI', async () => {
    const { code, stdout } = await run('npm', ['run', 'cli', '--', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: npm run cli -- [options] [command]');
  });
});
