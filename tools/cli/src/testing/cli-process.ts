/**
 * Integration-test helper: runs the operator CLI as a real child process, compiled (`node
 * tools/cli/dist/main.js ...`, built by the integration tests' global setup; cwd = repo root),
 * output kept in memory and in a log file under .cache/test-logs/. Registered with the harness so
 * that none outlives its test file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, ROOT } from '@va/infra/paths';
import { track } from '@va/testkit/support';

export interface CliProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `stdin`: text written to the CLI's standard input, which is then closed (none: no stdin). */
export function startCli(args: string[], env: Record<string, string>, stdin?: string): CliProcess {
  const dir = path.join(CACHE_DIR, 'test-logs');
  fs.mkdirSync(dir, { recursive: true });
  const log = fs.createWriteStream(path.join(dir, `cli.${args[0] ?? 'help'}.${Date.now()}.log`));
  const child = spawn(process.execPath, ['--enable-source-maps', 'tools/cli/dist/main.js', ...args], {
    cwd: ROOT,
    env,
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  track(child);
  if (stdin !== undefined) child.stdin!.end(stdin);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    log.write(chunk);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    log.write(chunk);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      log.end();
      resolve(code);
    }),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    exited,
    stdout: () => out,
    stderr: () => err,
    kill(signal = 'SIGTERM') {
      if (!done) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a CLI command to its end. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startCli(args, env, stdin);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}
