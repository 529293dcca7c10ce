import { describe, expect, it } from 'vitest';
import { formatEta, progressOutput, throughput } from './progress-output';

describe('progressOutput (#45: progress where people wait)', () => {
  it('draws a bar only when stderr is a terminal, whatever stdout is', () => {
    expect(progressOutput({ stderrIsTTY: true })).toBe('bar');
    expect(progressOutput({ stderrIsTTY: false })).toBe('none');
    expect(progressOutput({ stderrIsTTY: false, textLines: true })).toBe('text');
  });

  it('prints JSON lines with --json, also on a terminal', () => {
    expect(progressOutput({ stderrIsTTY: true, json: true })).toBe('json');
    expect(progressOutput({ stderrIsTTY: false, json: true, textLines: true })).toBe('json');
  });
});

describe('throughput', () => {
  it('is the speed between two samples and the time left at it', () => {
    expect(throughput({ atMs: 0, done: 100 }, { atMs: 2000, done: 1100 }, 3100)).toEqual({
      perSecond: 500,
      etaSeconds: 4,
    });
  });

  it('has no estimate before anything moved, and none needed when done', () => {
    expect(throughput({ atMs: 0, done: 0 }, { atMs: 0, done: 0 }, 10)).toEqual({
      perSecond: 0,
      etaSeconds: null,
    });
    expect(throughput({ atMs: 0, done: 0 }, { atMs: 5000, done: 0 }, 10).etaSeconds).toBeNull();
    expect(throughput({ atMs: 0, done: 0 }, { atMs: 1000, done: 10 }, 10).etaSeconds).toBe(0);
  });
});

describe('formatEta', () => {
  it.each([
    [null, '?'],
    [0, '0s'],
    [59, '59s'],
    [247, '4m 07s'],
    [7500, '2h 05m'],
  ])('%j -> %s', (seconds, text) => expect(formatEta(seconds)).toBe(text));
});
