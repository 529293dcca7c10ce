import { describe, expect, it } from 'vitest';
import { answerData, answerEvent, answerId, errorEvent } from './sse';

const enc = (s: string) => new TextEncoder().encode(s);

describe('stream events', () => {
  it('writes the StreamAnswer data as one line of JSON', () => {
    const data = answerData([enc('[{"valid":1,'), enc('"total":1}]')], 'day');
    expect(JSON.parse(data.toString())).toEqual({ data: [{ valid: 1, total: 1 }], precision: 'day' });
  });

  it('gives equal answers equal ids, and different answers different ids', () => {
    const a = answerData([enc('[]')], 'hour');
    expect(answerId(a)).toBe(answerId(answerData([enc('[]')], 'hour')));
    expect(answerId(a)).not.toBe(answerId(answerData([enc('[]')], 'day')));
    expect(answerId(a)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('frames an answer as id, event and data lines ended by a blank line', () => {
    const event = answerEvent('abc', enc('{"x":"a\\nb"}')).toString();
    expect(event).toBe('id: abc\nevent: answer\ndata: {"x":"a\\nb"}\n\n');
  });

  it('frames an error without an id', () => {
    const envelope = {
      meta: { requestId: 'r' },
      error: { title: 'Unauthorized', detail: 'd', status: 401, type: 'u', errors: [] },
    };
    const event = errorEvent(envelope).toString();
    expect(event.startsWith('event: error\ndata: {')).toBe(true);
    expect(event).not.toContain('id:');
    expect(JSON.parse(event.split('\n')[1]!.slice('data: '.length))).toEqual(envelope);
  });
});
