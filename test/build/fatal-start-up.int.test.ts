/**
 * #45: a service that cannot start says so as one pino JSON line on stdout (level fatal, the error
 * serialized), like every other line it writes, and adds a one-line human summary on stderr only when
 * stdout is a terminal. Each compiled service is started with a bad setting (as `npm start` and the image
 * run them); the terminal case runs the query service under `script`, which gives it a pseudo-terminal.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';
import { track } from '@va/testkit/support';

const BAD = { PORT: 'not-a-port' };
const MESSAGE = 'PORT must be a non-negative integer, got not-a-port';

function run(
  command: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...BAD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('fatal start-up errors (#45)', () => {
  it.each(['query', 'ingest', 'compactor'])(
    '%s: exit 1, one fatal JSON line on stdout, nothing on stderr off a terminal',
    async (service) => {
      const { code, stdout, stderr } = await run(process.execPath, [`services/${service}/dist/main.js`]);
      expect(code).toBe(1);
      expect(stderr).toBe('');
      const lines = stdout.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { err: { stack: string } };
      expect(line).toMatchObject({
        level: 60,
        service,
        msg: 'start-up failed',
        err: { type: 'Error', message: MESSAGE },
      });
      expect(line.err.stack).toContain('loadConfig');
    },
  );

  it('query on a terminal: the JSON line and a one-line summary', async () => {
    // script -q -e -c CMD /dev/null: CMD's stdout and stderr are a pseudo-terminal; both come out on script's stdout.
    const { code, stdout } = await run('script', [
      '-qec',
      `${process.execPath} services/query/dist/main.js`,
      '/dev/null',
    ]);
    expect(code).toBe(1);
    const lines = stdout.split(/\r?\n/).filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines.find((l) => l.startsWith('{'))!)).toMatchObject({ level: 60, service: 'query' });
    expect(lines).toContain(`query: start-up failed: ${MESSAGE}`);
  });
});
