import { describe, expect, it } from 'vitest';
import { counted, formatSummary, summaryJson, tallyWorkerDeadLetters, type BackfillTally } from './summary';

const dlq = (topic: string, partition: number, offset: number, reason: string) => ({
  headers: {
    'x-original-topic': Buffer.from(topic),
    'x-original-partition': Buffer.from(String(partition)),
    'x-original-offset': Buffer.from(String(offset)),
    'x-dlq-reason': Buffer.from(reason),
  },
});

describe('tallyWorkerDeadLetters', () => {
  it("counts the worker's DLQ records of the produced offsets once each", () => {
    const produced = new Map([
      [0, { from: 10, to: 20 }],
      [1, { from: 0, to: 5 }],
    ]);
    const seen = new Set<string>();
    const into = new Map<string, number>();
    tallyWorkerDeadLetters(
      [
        dlq('bf', 0, 12, 'workspace_mismatch'),
        dlq('bf', 0, 12, 'workspace_mismatch'), // repeated after a worker crash
        dlq('bf', 0, 9, 'expired'), // before this backfill
        dlq('bf', 1, 4, 'expired'),
        dlq('live', 1, 4, 'schema'), // another topic
        dlq('file:x.ndjson', -1, 3, 'not_json'), // the CLI's own
        { headers: {} },
      ],
      'bf',
      produced,
      seen,
      into,
    );
    expect(Object.fromEntries(into)).toEqual({ workspace_mismatch: 1, expired: 1 });
  });
});

describe('formatSummary', () => {
  const tally: BackfillTally = {
    source: 'events.ndjson',
    topic: 'ev.backfill',
    read: 1010,
    produced: 1000,
    rejected: new Map([
      ['not_json', 6],
      ['future_time', 4],
    ]),
    workerRejected: new Map([['workspace_mismatch', 2]]),
    seconds: 3.25,
  };

  it('reports read, produced, counted and dead-lettered by reason', () => {
    expect(counted(tally)).toBe(998);
    const text = formatSummary(tally);
    expect(text).toMatch(/read\s+1010/);
    expect(text).toMatch(/produced\s+1000/);
    expect(text).toMatch(/counted\s+998/);
    expect(text).toMatch(/dead-lettered\s+12\s+future_time=4 not_json=6 workspace_mismatch=2/);
    expect(text).toMatch(/2 of them by the ingest worker/);
    expect(summaryJson(tally)).toMatchObject({ counted: 998, deadLettered: { not_json: 6, future_time: 4 } });
  });

  it('says when the count is unknown', () => {
    expect(formatSummary({ ...tally, workerRejected: null })).toMatch(/counted\s+not known/);
  });
});
