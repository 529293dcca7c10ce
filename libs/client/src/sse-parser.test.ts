import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from './sse-parser';

function parse(chunks: string[]): { events: SseEvent[]; retries: number[] } {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const parser = createSseParser({ onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms) });
  const encoder = new TextEncoder();
  for (const chunk of chunks) parser.push(encoder.encode(chunk));
  return { events, retries };
}

describe('the SSE parser', () => {
  it('reads events with their type, data and id', () => {
    const { events } = parse(['id: a1\nevent: answer\ndata: {"x":1}\n\n']);
    expect(events).toEqual([{ type: 'answer', data: '{"x":1}', id: 'a1' }]);
  });

  it('joins multi-line data with LF and defaults the type to message', () => {
    expect(parse(['data: one\ndata:two\n\n']).events).toEqual([
      { type: 'message', data: 'one\ntwo', id: '' },
    ]);
  });

  it('accepts CRLF, CR and LF line ends, also split across chunks', () => {
    const { events } = parse(['data: a\r', '\n\r', '\ndata: b\rdata: c\r\r', 'data: d\n', '\n']);
    expect(events.map((e) => e.data)).toEqual(['a', 'b\nc', 'd']);
  });

  it('waits for the blank line: an event split anywhere is one event', () => {
    const text = 'id: 7\nevent: answer\ndata: {"rows":[1,2]}\n\n';
    for (let cut = 1; cut < text.length; cut++) {
      expect(parse([text.slice(0, cut), text.slice(cut)]).events).toEqual([
        { type: 'answer', data: '{"rows":[1,2]}', id: '7' },
      ]);
    }
  });

  it('ignores comments, events without data, and ids holding NUL; keeps the last id across events', () => {
    const { events } = parse([': heartbeat\n\nevent: x\n\nid: k\ndata: 1\n\nid: bad\u0000\ndata: 2\n\n']);
    expect(events).toEqual([
      { type: 'message', data: '1', id: 'k' },
      { type: 'message', data: '2', id: 'k' },
    ]);
  });

  it('reports retry only when it is digits', () => {
    expect(parse(['retry: 1500\nretry: 2s\n\n']).retries).toEqual([1500]);
  });

  it('drops a leading BOM and decodes UTF-8 split inside a character', () => {
    const parser = createSseParser({ onEvent: (e) => events.push(e) });
    const events: SseEvent[] = [];
    const bytes = new TextEncoder().encode('\uFEFFdata: é😀\n\n');
    for (const b of bytes) parser.push(Uint8Array.of(b));
    expect(events).toEqual([{ type: 'message', data: 'é😀', id: '' }]);
  });
});
