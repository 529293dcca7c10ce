import { describe, expect, it } from 'vitest';
import { foundLine, lineHeaders, newRecord, ResumeState, VALID } from './resume';

const now = new Date('2026-11-23T20:00:00Z');
const before = [
  { topic: 'bf', partition: 0, high: 10 },
  { topic: 'dlq', partition: 0, high: 3 },
];

describe('backfill progress record', () => {
  it('moves after each acknowledged batch: lines, tallies and where a resume looks', () => {
    const state = new ResumeState(newRecord('abc', 'f.ndjson', before, now), new Map());
    expect(state.record.scanFrom).toEqual({ 'bf/0': 10, 'dlq/0': 3 });
    state.delivered(
      [
        { line: 1, kind: VALID },
        { line: 3, kind: 'not_json' },
        { line: 4, kind: VALID },
      ],
      [{ topicName: 'bf', partition: 0, errorCode: 0, baseOffset: '10' }],
      now,
    );
    expect(state.record).toMatchObject({ lines: 4, read: 3, produced: 2, rejected: { not_json: 1 } });
    state.delivered(
      [{ line: 5, kind: VALID }],
      [{ topicName: 'bf', partition: 0, errorCode: 0, baseOffset: '12' }],
      now,
    );
    expect(state.record.scanFrom).toEqual({ 'bf/0': 12, 'dlq/0': 3 });
    expect(state.needs(5)).toBe(false);
    expect(state.needs(6)).toBe(true);
  });

  it('a resumed run skips the lines found in Kafka and counts them once the record passes them', () => {
    const record = { ...newRecord('abc', 'f', before, now), lines: 4, read: 4, produced: 4 };
    const state = new ResumeState(
      record,
      new Map([
        [6, VALID],
        [7, 'expired'],
      ]),
    );
    expect([5, 6, 7, 8].map((l) => state.needs(l))).toEqual([true, false, false, true]);
    state.delivered([{ line: 5, kind: VALID }], [], now);
    expect(state.record).toMatchObject({ lines: 5, read: 5, produced: 5 });
    state.delivered([{ line: 8, kind: VALID }], [], now);
    expect(state.record).toMatchObject({ lines: 8, read: 8, produced: 7, rejected: { expired: 1 } });
    expect(state.finish(9, now)).toMatchObject({ lines: 9, done: true, read: 8 });
  });

  it('finish counts found lines past the last one sent', () => {
    const state = new ResumeState({ ...newRecord('abc', 'f', before, now), lines: 2 }, new Map([[3, VALID]]));
    expect(state.finish(3, now)).toMatchObject({ lines: 3, read: 1, produced: 1, done: true });
  });

  it('recognises its own lines: by hash, and in the DLQ only the CLI dead letters of a file', () => {
    const mine = lineHeaders('abc', 7);
    expect(foundLine('abc', false, mine)).toEqual({ line: 7, kind: VALID });
    expect(foundLine('other', false, mine)).toBeUndefined();
    expect(
      foundLine('abc', true, { ...mine, 'x-original-topic': 'file:/x', 'x-dlq-reason': 'not_json' }),
    ).toEqual({ line: 7, kind: 'not_json' });
    expect(
      foundLine('abc', true, { ...mine, 'x-original-topic': 'bf', 'x-dlq-reason': 'workspace_mismatch' }),
    ).toBeUndefined();
  });
});
