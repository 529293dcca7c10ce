import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fatalSummary, reportFatal } from './fatal';

/** Reports into a temporary file (the JSON line) and an array (stderr). */
function report(stdoutIsTTY: boolean, err: unknown) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fatal-')), 'stdout');
  const fd = fs.openSync(file, 'w');
  const stderr: string[] = [];
  try {
    reportFatal('query', 'start-up failed', err, {
      stdoutFd: fd,
      stdoutIsTTY,
      stderr: { write: (text: string) => stderr.push(text) },
    });
  } finally {
    fs.closeSync(fd);
  }
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  fs.rmSync(path.dirname(file), { recursive: true });
  return { lines, stderr };
}

describe('reportFatal (#45: fatal start-up errors as JSON logs)', () => {
  it('writes one pino JSON line, level fatal, with the error serialized; nothing on stderr off a terminal', () => {
    const { lines, stderr } = report(false, new Error('PORT must be a non-negative integer, got x'));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 60,
      service: 'query',
      pid: process.pid,
      msg: 'start-up failed',
      err: { type: 'Error', message: 'PORT must be a non-negative integer, got x' },
    });
    expect((line.err as { stack: string }).stack).toContain('fatal.test.ts');
    expect(stderr).toEqual([]);
  });

  it('adds a one-line summary on stderr when stdout is a terminal', () => {
    const { lines, stderr } = report(true, new Error('PORT must be a non-negative integer, got x'));
    expect(lines).toHaveLength(1);
    expect(stderr).toEqual(['query: start-up failed: PORT must be a non-negative integer, got x\n']);
  });

  it('serializes a thrown non-Error too', () => {
    const line = JSON.parse(report(false, 'just a string').lines[0]!) as { err: { message: string } };
    expect(line.err.message).toBe('just a string');
  });
});

describe('fatalSummary', () => {
  it("is one line: the service, what happened, the error's first non-blank line", () => {
    expect(fatalSummary('ingest', 'start-up failed', new Error('\nconnect ECONNREFUSED\n  more'))).toBe(
      'ingest: start-up failed: connect ECONNREFUSED',
    );
    expect(fatalSummary('compactor', 'uncaught exception', new Error(''))).toBe(
      'compactor: uncaught exception: (no message)',
    );
  });
});
