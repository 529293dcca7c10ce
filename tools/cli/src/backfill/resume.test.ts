import { describe, expect, it } from 'vitest';
import { CHAIN_START, chainNext } from './lines';
import {
  foundLine,
  lineHeaders,
  newRecord,
  parseRecord,
  ResumeState,
  startVerdict,
  VALID,
  type BackfillRecord,
  type FoundLine,
} from './resume';

const now = new Date('2026-11-23T20:00:00Z');
const before = [
  { topic: 'bf', partition: 0, high: 10 },
  { topic: 'dlq', partition: 0, high: 3 },
];
const names = { key: 'va:backfill:abc', path: 'f.ndjson' };
const ref = (line: number, kind = VALID) => ({ line, kind, chain: `c${line}` });

/** The chain at every line of `lines` (index 0 = line 1). */
const chainsOf = (lines: readonly string[]): string[] => {
  let chain = CHAIN_START;
  return lines.map((l) => (chain = chainNext(chain, Buffer.from(l))));
};

describe('backfill progress record', () => {
  it('moves after each acknowledged batch: lines, chain, tallies and where a resume looks', () => {
    const state = new ResumeState(newRecord('abc', 'f.ndjson', before, now), new Map());
    expect(state.record.scanFrom).toEqual({ 'bf/0': 10, 'dlq/0': 3 });
    state.delivered(
      [ref(1), ref(3, 'not_json'), ref(4)],
      [{ topicName: 'bf', partition: 0, errorCode: 0, baseOffset: '10' }],
      now,
    );
    expect(state.record).toMatchObject({
      lines: 4,
      chain: 'c4',
      read: 3,
      produced: 2,
      rejected: { not_json: 1 },
    });
    state.delivered([ref(5)], [{ topicName: 'bf', partition: 0, errorCode: 0, baseOffset: '12' }], now);
    expect(state.record.scanFrom).toEqual({ 'bf/0': 12, 'dlq/0': 3 });
    expect(state.decide(5, 'c5', false)).toBe('skip');
    expect(state.decide(6, 'c6', false)).toBe('send');
  });

  it('a resumed run skips the lines found in Kafka and counts them once the record passes them', () => {
    const record = { ...newRecord('abc', 'f', before, now), lines: 4, chain: 'c4', read: 4, produced: 4 };
    const found = new Map<number, FoundLine>([
      [6, { kind: VALID, chain: 'c6' }],
      [7, { kind: 'expired', chain: 'c7' }],
    ]);
    const state = new ResumeState(record, found, names);
    expect([5, 6, 7, 8].map((l) => state.decide(l, `c${l}`, false))).toEqual([
      'hold',
      'skip',
      'skip',
      'send',
    ]);
    state.delivered([ref(5)], [], now);
    expect(state.record).toMatchObject({ lines: 5, read: 5, produced: 5 });
    state.delivered([ref(8)], [], now);
    expect(state.record).toMatchObject({ lines: 8, read: 8, produced: 7, rejected: { expired: 1 } });
    expect(state.finish(9, 'c9', true, now)).toMatchObject({ lines: 9, chain: 'c9', done: true, read: 8 });
  });

  it('finish counts found lines past the last one sent; a partial last line leaves the record unfinished', () => {
    const record = { ...newRecord('abc', 'f', before, now), lines: 2, chain: 'c2', done: true };
    const state = new ResumeState(record, new Map([[3, { kind: VALID, chain: 'c3' }]]), names);
    state.delivered([], [], now);
    expect(state.record.done).toBe(false);
    expect(state.finish(3, 'c3', false, now)).toMatchObject({ lines: 3, read: 1, produced: 1, done: false });
  });

  it('recognises its own lines: by id, with their chain, and in the DLQ only the CLI dead letters of a file', () => {
    const mine = lineHeaders('abc', 7, 'c7');
    expect(foundLine('abc', false, mine)).toEqual({ line: 7, kind: VALID, chain: 'c7' });
    expect(foundLine('other', false, mine)).toBeUndefined();
    expect(
      foundLine('abc', true, { ...mine, 'x-original-topic': 'file:/x', 'x-dlq-reason': 'not_json' }),
    ).toEqual({ line: 7, kind: 'not_json', chain: 'c7' });
    expect(
      foundLine('abc', true, { ...mine, 'x-original-topic': 'bf', 'x-dlq-reason': 'workspace_mismatch' }),
    ).toBeUndefined();
  });

  it('a record of the first version (keyed by the whole file) is told apart', () => {
    expect(parseRecord(JSON.stringify({ version: 1, sha256: 'x', lines: 12 }))).toEqual({
      legacy: { lines: 12 },
    });
    expect(parseRecord(null)).toEqual({});
    expect(parseRecord(JSON.stringify(newRecord('abc', 'f', [], now))).record?.id).toBe('abc');
  });
});

describe('#39 item 6: a changed file', () => {
  const sent = (lines: number, chain: string): BackfillRecord => ({
    ...newRecord('abc', 'f', before, now),
    lines,
    chain,
  });

  it('an edit of a line the record covers refuses the file at the record line, naming the record', () => {
    const chains = chainsOf(['a', 'b', 'c']);
    const edited = chainsOf(['a', 'B', 'c']);
    const state = new ResumeState(sent(3, chains[2]!), new Map(), names);
    expect(state.decide(2, edited[1]!, false)).toBe('skip');
    const verdict = state.decide(3, edited[2]!, false);
    expect(verdict).toEqual({
      refuse: expect.stringMatching(
        /f\.ndjson changed: its lines 1-3 differ .* progress record va:backfill:abc/,
      ),
    });
    expect(new ResumeState(sent(3, chains[2]!), new Map(), names).decide(3, chains[2]!, false)).toBe('skip');
  });

  it('a line found in Kafka that is not the same line any more refuses; one missing before it is held', () => {
    const found = new Map<number, FoundLine>([
      [3, { kind: VALID, chain: 'c3' }],
      [5, { kind: VALID, chain: 'c5' }],
    ]);
    const state = new ResumeState(sent(2, 'c2'), found, names);
    expect(state.decide(3, 'x3', false)).toEqual({ refuse: expect.stringMatching(/its line 3 differs/) });
    expect(state.decide(4, 'c4', true)).toBe('skip');
    expect(state.decide(4, 'c4', false)).toBe('hold');
    expect(state.lastFound).toBe(5);
    expect(state.decide(6, 'c6', false)).toBe('send');
  });

  it('a file shorter than what was sent refuses at its end', () => {
    const state = new ResumeState(sent(2, 'c2'), new Map([[4, { kind: VALID, chain: 'c4' }]]), names);
    expect(state.end(3)).toMatch(/it has 3 lines, fewer than the 4/);
    expect(state.end(4)).toBeUndefined();
  });

  it('interrupt anywhere (with lines missing between found ones), append, run again: every line sent once', () => {
    const file = Array.from({ length: 60 }, (_, n) => (n % 7 === 3 ? '' : `e${n}`));
    const chains = chainsOf(file);
    const events = file.flatMap((l, n) => (l === '' ? [] : [n + 1]));
    for (let killedAfter = 0; killedAfter <= 50; killedAfter += 5)
      for (let savedAt = 0; savedAt <= killedAfter; savedAt += 4)
        for (const gaps of [false, true]) {
          // Run 1 wrote the lines up to savedAt (its record's line) and some after it before it died:
          // all of them, or, with gaps, not those of a partition whose write failed (every third).
          const written = events.filter((n) => n <= savedAt || (n <= killedAfter && !(gaps && n % 3 === 0)));
          const found = new Map<number, FoundLine>(
            written.filter((n) => n > savedAt).map((n) => [n, { kind: VALID, chain: chains[n - 1] }]),
          );
          // Run 2 reads the file with 10 lines appended.
          const state = new ResumeState(
            sent(savedAt, savedAt === 0 ? '' : chains[savedAt - 1]!),
            found,
            names,
          );
          const sends = [...written];
          for (let n = 1; n <= file.length; n++) {
            const verdict = state.decide(n, chains[n - 1]!, file[n - 1] === '');
            expect(typeof verdict, `killed after ${killedAfter}, saved at ${savedAt}, line ${n}`).toBe(
              'string',
            );
            if (verdict === 'send' || verdict === 'hold') sends.push(n);
          }
          expect(state.end(file.length)).toBeUndefined();
          expect(sends.sort((a, b) => a - b)).toEqual(events);
        }
  });
});

describe('#39 item 6: the path of a file', () => {
  const record = (done: boolean): BackfillRecord => ({ ...newRecord('old', 'f', [], now), lines: 40, done });

  it('refuses other content at a path whose backfill is unfinished, naming its record', () => {
    const verdict = startVerdict('f', 'va:backfill:new', undefined, {
      key: 'va:backfill:old',
      record: record(false),
    });
    expect(verdict).toEqual({
      refuse: expect.stringMatching(/^f has an unfinished progress record va:backfill:old \(lines 1-40 sent/),
    });
  });

  it('says when the path had other content before, and when the file was backfilled completely', () => {
    expect(
      startVerdict('f', 'va:backfill:new', undefined, { key: 'va:backfill:old', record: record(true) }),
    ).toEqual({
      notes: [
        expect.stringMatching(/backfilled before with other content \(progress record va:backfill:old/),
      ],
    });
    expect(startVerdict('f', 'k', record(true), undefined)).toEqual({
      notes: [expect.stringMatching(/lines 1-40 were backfilled completely/)],
    });
    expect(startVerdict('f', 'k', record(false), undefined)).toEqual({
      notes: [expect.stringMatching(/resuming f after line 40/)],
    });
  });
});
