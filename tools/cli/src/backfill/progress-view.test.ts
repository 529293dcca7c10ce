import { describe, expect, it } from 'vitest';
import { BackfillProgress, backfillProgressLine } from './progress-view';

describe('backfill progress', () => {
  it('writes JSON lines with --json and no terminal: phase, percent, events/s and ETA', () => {
    const lines: string[] = [];
    const progress = new BackfillProgress((line) => lines.push(line), {
      json: true,
      stderrIsTTY: false,
      lineEveryMs: 0,
    });
    progress.update('read', 0, 1_000, { read: 0, valid: 0, dead: 0 });
    progress.update('read', 500, 1_000, { read: 50, valid: 49, dead: 1 });
    progress.update('counted', 0, 50);
    progress.update('counted', 50, 50);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.map((p) => [p.progress, p.phase, p.percent])).toEqual([
      ['backfill', 'read', 0],
      ['backfill', 'read', 50],
      ['backfill', 'counted', 0],
      ['backfill', 'counted', 100],
    ]);
    expect(parsed[1]).toMatchObject({ read: 50, valid: 49, dead: 1, done: 500, total: 1_000 });
    expect(parsed.every((p) => typeof p.eventsPerSecond === 'number' && 'etaSeconds' in p)).toBe(true);
  });

  it('writes nothing between lines until lineEveryMs has passed', () => {
    const lines: string[] = [];
    const progress = new BackfillProgress((line) => lines.push(line), { json: false, stderrIsTTY: false });
    for (let n = 0; n < 100; n++) progress.update('read', n, 100, { read: n, valid: n, dead: 0 });
    expect(lines).toEqual([]);
  });

  it('text lines name the phase, the counts, the speed and the time left', () => {
    const speed = { eventsPerSecond: 1234.4, etaSeconds: 125 };
    expect(backfillProgressLine('read', 25, 100, speed, { read: 10, valid: 9, dead: 1 }, 'text')).toBe(
      'backfill read: 25%, 10 read, 9 valid, 1 dead-lettered, 1234 events/s, ETA 2m 05s',
    );
    expect(
      backfillProgressLine('counted', 3, 4, { eventsPerSecond: 0, etaSeconds: null }, undefined, 'text'),
    ).toBe('backfill counted: 75%, 3 of 4 offsets applied, 0 events/s, ETA ?');
  });
});
