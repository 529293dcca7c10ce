/**
 * #45: `produce` draws its progress bar on stderr, so whether it draws one depends on stderr being a
 * terminal, not stdout. Run under `script` (a pseudo-terminal): with stdout piped away and stderr on the
 * terminal the bar is drawn; with stderr redirected to a file (stdout on the terminal) the file holds no bar.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';
import { createTopics, deleteTopics, testEnv, track, type TestEnv } from '@va/testkit/support';

let t: TestEnv;
let dir: string;
beforeAll(async () => {
  t = await testEnv('produce progress');
  await createTopics(t.kafkaBrokers, [t.topic], 1);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'produce-progress-'));
});
afterAll(async () => {
  await deleteTopics(t.kafkaBrokers, [t.topic]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `script -qec <shell line> /dev/null`: the line runs on a pseudo-terminal; what it shows comes out on stdout. */
function onTerminal(line: string): Promise<{ code: number | null; screen: string }> {
  const child = spawn('script', ['-qec', line, '/dev/null'], {
    cwd: ROOT,
    env: t.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, screen })));
}

const produce = `${process.execPath} tools/cli/dist/main.js produce --events 300 --apis 2 --seed 1`;

describe('produce progress (#45)', () => {
  it('draws the bar on stderr when stderr is a terminal, though stdout is piped', async () => {
    const out = path.join(dir, 'stdout.txt');
    const { code, screen } = await onTerminal(`${produce} | cat > ${out}`);
    expect(code).toBe(0);
    expect(screen).toContain('produce [');
    expect(fs.readFileSync(out, 'utf8')).toMatch(/^produced 300 events/);
  });

  it('draws no bar when stderr is not a terminal, though stdout is', async () => {
    const err = path.join(dir, 'stderr.txt');
    const { code, screen } = await onTerminal(`${produce} 2> ${err}`);
    expect(code).toBe(0);
    expect(screen).toContain('produced 300 events');
    expect(screen).not.toContain('produce [');
    expect(fs.readFileSync(err, 'utf8')).not.toContain('produce [');
  });
});
