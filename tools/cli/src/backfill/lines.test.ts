import { describe, expect, it } from 'vitest';
import { CHAIN_START, chainNext, isBlank, lineText, LineSplitter } from './lines';

const split = (chunks: string[]) => {
  const s = new LineSplitter();
  const lines = chunks.flatMap((c) => [...s.push(Buffer.from(c))].map((l) => [l.line, l.bytes.toString()]));
  return { lines, partial: s.partial(), count: s.lines };
};

const chains = (text: string): string[] => {
  const s = new LineSplitter();
  let chain = CHAIN_START;
  return [...s.push(Buffer.from(text))].map(({ bytes }) => (chain = chainNext(chain, bytes)));
};

describe('#39 item 6: backfill file lines', () => {
  it('splits on line ends across chunks; bytes after the last line end are a partial line, not a line', () => {
    expect(split(['{"a":1}\n{"b"', ':2}\n\n{"c":', '3'])).toEqual({
      lines: [
        [1, '{"a":1}'],
        [2, '{"b":2}'],
        [3, ''],
      ],
      partial: { line: 4, bytes: Buffer.from('{"c":3') },
      count: 3,
    });
    expect(split(['x\n']).partial).toBeUndefined();
  });

  it('a CRLF line is sent without its \\r; blank lines are whitespace only', () => {
    expect(lineText(Buffer.from('{"a":1}\r')).toString()).toBe('{"a":1}');
    expect(isBlank(Buffer.from(' \r'))).toBe(true);
    expect(isBlank(Buffer.from(' {}'))).toBe(false);
  });

  it('the chain of a line proves every line up to it: appending keeps it, an edit anywhere before changes it', () => {
    const base = chains('a\nb\n\nc\n');
    expect(chains('a\nb\n\nc\nd\ne\n').slice(0, 4)).toEqual(base);
    expect(chains('a\nB\n\nc\n')[3]).not.toBe(base[3]);
    expect(chains('a\nb\n \nc\n')[3]).not.toBe(base[3]);
    expect(chains('\na\nb\n\nc\n')[4]).not.toBe(base[3]);
  });
});
