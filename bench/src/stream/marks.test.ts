import { describe, expect, it } from 'vitest';
import { MarkBook, pushLatencies } from './marks';

describe('MarkBook', () => {
  it('keeps running counts per scope and one mark per batch that changed it', () => {
    const book = new MarkBook();
    book.record(
      100,
      new Map([
        ['a', 3],
        ['a/e1', 1],
      ]),
    );
    book.record(
      150,
      new Map([
        ['a', 2],
        ['b', 0],
      ]),
    );
    expect(book.marksOf('a')).toEqual([
      { at: 100, total: 3 },
      { at: 150, total: 5 },
    ]);
    expect(book.marksOf('a/e1')).toEqual([{ at: 100, total: 1 }]);
    expect(book.marksOf('b')).toEqual([]);
    expect(book.totalOf('a')).toBe(5);
  });
});

describe('pushLatencies', () => {
  const marks = [
    { at: 100, total: 3 },
    { at: 150, total: 5 },
    { at: 200, total: 9 },
  ];

  it('times each mark to the first answer whose count reaches it', () => {
    const answers = [
      { at: 50, total: 0 },
      { at: 400, total: 5 }, // includes the first two batches
      { at: 1_300, total: 9 },
    ];
    expect(pushLatencies(marks, answers)).toEqual({ latencies: [300, 250, 1_100], unseen: 0 });
  });

  it('counts a later answer for a mark whose own count was never shown', () => {
    expect(pushLatencies(marks, [{ at: 900, total: 9 }])).toEqual({
      latencies: [800, 750, 700],
      unseen: 0,
    });
  });

  it('leaves out marks before `from` and counts marks no answer reached', () => {
    expect(pushLatencies(marks, [{ at: 400, total: 5 }], 150)).toEqual({ latencies: [250], unseen: 1 });
  });
});
