/**
 * The text rule of free text in events and queries (externalId, tags): what a person sees is
 * what is stored and counted. Refused:
 *
 *   - ill-formed UTF-16: a lone surrogate (U+D800–U+DFFF not in a high+low pair). JSON can carry
 *     one (`"\ud800"`), but Redis stores UTF-8, where it becomes U+FFFD: two distinct tags would
 *     merge and a tag set would show duplicates;
 *   - control characters (Unicode general category Cc): C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F;
 *   - bidirectional controls (Unicode property Bidi_Control): U+061C, U+200E, U+200F, U+202A–U+202E,
 *     U+2066–U+2069; they reorder what is displayed, so `invoice\u202Efdp.exe` reads as another text;
 *   - line and paragraph separators U+2028, U+2029 (line breaks in logs, CSV and terminals).
 *
 * Everything else is allowed: letters of any script, spaces, symbols, emoji (surrogate pairs, ZWJ
 * sequences). The rule is a regex source for the typebox patterns (./identifiers.ts), which the
 * event schema and the query schema share, and `textProblem` says in words what a value breaks.
 */

/** Code units (and ranges) that are never allowed, as a regex character-class body. */
const FORBIDDEN = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';
const SURROGATES = '\\ud800-\\udfff';

/**
 * One allowed character, as a regex source without flags (also valid with the `u` flag): any code
 * unit that is neither forbidden nor a surrogate, or a well-formed surrogate pair. `extra` adds
 * forbidden characters (a tag also refuses the comma, the list separator of the query string).
 */
export function allowedTextChar(extra = ''): string {
  return `(?:[^${FORBIDDEN}${SURROGATES}${extra}]|[\\ud800-\\udbff][\\udc00-\\udfff])`;
}

/** The rule in words, for error messages and docs. */
export const TEXT_RULE =
  'no control characters (U+0000–U+001F, U+007F–U+009F), no bidirectional controls ' +
  '(U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), no line or paragraph separators ' +
  '(U+2028, U+2029) and no lone UTF-16 surrogates';

const hex = (unit: number) => `U+${unit.toString(16).toUpperCase().padStart(4, '0')}`;

function forbiddenKind(unit: number): string | undefined {
  if (unit <= 0x1f || (unit >= 0x7f && unit <= 0x9f)) return 'control character';
  if (unit === 0x061c || unit === 0x200e || unit === 0x200f || (unit >= 0x202a && unit <= 0x202e))
    return 'bidirectional control';
  if (unit >= 0x2066 && unit <= 0x2069) return 'bidirectional control';
  if (unit === 0x2028) return 'line separator';
  if (unit === 0x2029) return 'paragraph separator';
  return undefined;
}

/**
 * What breaks the text rule in `text`, in words (`"bidirectional control U+202E at index 7"`), or
 * undefined when nothing does. The same rule as allowedTextChar (a test holds them together).
 */
export function textProblem(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return `lone UTF-16 surrogate ${hex(unit)} at index ${i}`;
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return `lone UTF-16 surrogate ${hex(unit)} at index ${i}`;
    const kind = forbiddenKind(unit);
    if (kind !== undefined) return `${kind} ${hex(unit)} at index ${i}`;
  }
  return undefined;
}
