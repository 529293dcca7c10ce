import { describe, expect, it } from 'vitest';
import type { PartitionProgress } from './progress';
import { progressLine } from './progress-view';

const rows: PartitionProgress[] = [
  { field: 'ev/0', start: 0, end: 999, target: 499, source: 999 },
  { field: 'ev/1', start: 0, end: 999, target: 999, source: 999 },
];
const speed = { perSecond: 250.4, etaSeconds: 2 };

describe('progressLine (#45: rebuild progress with events/s and ETA)', () => {
  it('is one JSON object per line with --json', () => {
    expect(JSON.parse(progressLine('replaying', rows, speed, 'json'))).toEqual({
      progress: 'rebuild',
      phase: 'replaying',
      done: 1500,
      total: 2000,
      percent: 75,
      eventsPerSecond: 250,
      etaSeconds: 2,
      partitionsBehind: 1,
      partitions: [
        { partition: 'ev/0', done: 500, total: 1000 },
        { partition: 'ev/1', done: 1000, total: 1000 },
      ],
    });
  });

  it('is readable text otherwise', () => {
    expect(progressLine('replaying', rows, { perSecond: 0, etaSeconds: null }, 'text')).toBe(
      'replaying: 1500 of 2000 offsets (75%), 0 events/s, ETA ?, 1 partitions behind the current generation; ev/0 50%, ev/1 100%',
    );
  });
});
