/**
 * A minute's f hash cut into its parts (field-codec.ts textsByPart), kept while Redis sends the same text.
 *
 * A minute bucket has no section and no version (units.ts): every read sends its whole hash, whose
 * fields name their identity, and the reader cut it field by field on every request. A time zone's
 * split midnights read 30 such minutes each (libs/core edge-minutes.ts), an identity's query by day in
 * Asia/Kolkata ~5,000 fields, 1.5 ms of CPU per request. A minute's text changes only when a (late)
 * event lands in it, so the cut is kept per key and used again while the text is equal (one string
 * comparison): always the cut of the text Redis sent.
 *
 * Per thread, bounded by the texts' length (the parts hold the same characters again).
 */
import { LRUCache } from 'lru-cache';
import { textsByPart } from '../field-codec';

/** Characters of minute texts kept (each also held once more in its parts): ~16 MB per thread. */
const MAX_CHARS = 4 << 20;

const held = new LRUCache<string, { text: string; parts: ReadonlyMap<string, string> }>({
  maxSize: MAX_CHARS,
  sizeCalculation: (entry) => Math.max(1, entry.text.length),
});

/** textsByPart(text) of the minute f hash `key`, from the last cut of that key when its text is the same. */
export function minuteParts(key: string, text: string): ReadonlyMap<string, string> {
  const last = held.get(key);
  if (last?.text === text) return last.parts;
  const parts = textsByPart(text);
  if (text.length <= MAX_CHARS) held.set(key, { text, parts });
  return parts;
}
