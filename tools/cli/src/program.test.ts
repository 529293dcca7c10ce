// Walks the CLI's command tree as commander holds it (so commands added later are covered without
// touching this file) and runs every command with --help and -h, and with an unknown option.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { buildProgram, runCli, type Output } from './program';

function capture(): Output & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    stdout: () => out,
    stderr: () => err,
  };
}

/** Every command of the tree as the argv path that reaches it; the root is []. */
function commandPaths(command: CommandUnknownOpts, path: string[] = []): string[][] {
  return [path, ...command.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]))];
}

const paths = commandPaths(buildProgram());

describe('the command tree', () => {
  it('holds the operator interface of the contract', () => {
    const names = paths.map((p) => p.join(' '));
    for (const name of ['root-key create', 'root-key revoke', 'api register']) expect(names).toContain(name);
  });

  it.each(paths.map((p) => [p.join(' ') || '(root)', p] as const))('%s describes itself', (_name, path) => {
    let command: CommandUnknownOpts = buildProgram();
    for (const name of path) command = command.commands.find((c) => c.name() === name)!;
    expect(command.description().length).toBeGreaterThan(20);
    for (const option of command.options) expect(option.description, option.flags).not.toBe('');
  });
});

describe.each(['--help', '-h'])('%s', (flag) => {
  it.each(paths.map((p) => [p.join(' ') || '(root)', p] as const))(
    '%s: exit 0 with its usage on stdout',
    async (_name, path) => {
      const io = capture();
      expect(await runCli([...path, flag], io)).toBe(0);
      expect(io.stdout()).toContain(`Usage: npm run cli -- ${path.map((p) => `${p} `).join('')}`);
      expect(io.stderr()).toBe('');
    },
  );
});

describe('usage errors exit 2 with the usage on stderr', () => {
  it.each(paths.map((p) => [p.join(' ') || '(root)', p] as const))(
    '%s --no-such-option',
    async (_name, path) => {
      const io = capture();
      expect(await runCli([...path, '--no-such-option'], io)).toBe(2);
      // commander reports a missing required option before an unknown one.
      expect(io.stderr()).toMatch(/^error: (unknown option '--no-such-option'|required option)/);
      expect(io.stderr()).toContain(`Usage: npm run cli -- ${path.map((p) => `${p} `).join('')}`);
      expect(io.stdout()).toBe('');
    },
  );

  it('an unknown command', async () => {
    const io = capture();
    expect(await runCli(['no-such-command'], io)).toBe(2);
    expect(io.stderr()).toMatch(/unknown command 'no-such-command'/);
    expect(io.stderr()).toContain('Usage: npm run cli --');
  });

  it('an unknown subcommand', async () => {
    const io = capture();
    expect(await runCli(['root-key', 'rotate'], io)).toBe(2);
    expect(io.stderr()).toMatch(/unknown command 'rotate'/);
  });

  it('a missing required option, a bad value', async () => {
    for (const argv of [
      ['root-key', 'create', '--workspace', 'ws'],
      ['root-key', 'create', '--workspace', 'a b', '--permission', 'api.*.read_api'],
      ['api', 'register', '--workspace', 'ws'],
      ['produce', '--events', 'many'],
      ['backfill', '--timeout', '0', '--file', 'x'],
    ]) {
      const io = capture();
      expect(await runCli(argv, io), argv.join(' ')).toBe(2);
      expect(io.stderr(), argv.join(' ')).toMatch(/^error: .*\n[\s\S]*Usage: /);
    }
  });

  it('a usage error found by a command body (exactly one of two options)', async () => {
    const io = capture();
    expect(await runCli(['backfill'], io)).toBe(2);
    expect(io.stderr()).toMatch(/error: give exactly one of --file and --from-topic/);
    expect(io.stderr()).toContain('Usage: npm run cli -- backfill');
  });
});
