/**
 * A Server-Sent Events parser (the WHATWG HTML standard's "event stream interpretation"), fed the
 * response body's bytes as they arrive. Pure.
 *
 * Hand-written rather than a dependency (eventsource-parser would fit): the published client has no
 * runtime dependency at all (its package test checks that its JavaScript imports nothing else), and
 * what it needs of the standard fits here: UTF-8 with an optional BOM, lines ended by CRLF, LF or CR
 * (also split across chunks), comments, `event`, multi-line `data`, `id` (ignored when it holds NUL;
 * kept across events) and `retry`. Tested against those rules in sse-parser.test.ts.
 */

export interface SseEvent {
  /** `event:` field; `message` when the event had none. */
  type: string;
  data: string;
  /** The last event id seen so far (the standard's "last event ID" buffer); '' when none. */
  id: string;
}

export interface SseParser {
  /** Feeds bytes; calls back for each complete event and each valid `retry:` (ms). */
  push(chunk: Uint8Array): void;
}

export function createSseParser(handlers: {
  onEvent: (event: SseEvent) => void;
  onRetry?: (ms: number) => void;
}): SseParser {
  const decoder = new TextDecoder('utf-8'); // drops a leading BOM by itself
  let buffer = '';
  let data = '';
  let type = '';
  let id = '';
  let hasData = false;
  /** The previous chunk ended in CR: an LF starting this one belongs to that line end. */
  let afterCr = false;

  function line(text: string): void {
    if (text === '') {
      if (hasData) handlers.onEvent({ type: type || 'message', data: data.slice(0, -1), id });
      data = '';
      type = '';
      hasData = false;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      data += `${value}\n`;
      hasData = true;
    } else if (field === 'event') type = value;
    else if (field === 'id') {
      if (!value.includes('\u0000')) id = value;
    } else if (field === 'retry' && /^[0-9]+$/.test(value)) handlers.onRetry?.(Number(value));
  }

  return {
    push(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      let start = 0;
      if (afterCr && buffer.startsWith('\n')) start = 1;
      afterCr = false;
      for (let i = start; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        line(buffer.slice(start, i));
        if (c === 13) {
          if (i + 1 === buffer.length) afterCr = true;
          else if (buffer.charCodeAt(i + 1) === 10) i++;
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
  };
}
