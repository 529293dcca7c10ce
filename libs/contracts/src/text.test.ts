// The text rule of tags and externalId: what a person sees is what is stored and counted.
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExternalId, Tag } from './identifiers';
import { allowedTextChar, textProblem } from './text';

const refused: [string, string][] = [
  ['a lone high surrogate', 'a\ud800b'],
  ['a lone low surrogate', 'a\udc00b'],
  ['a low surrogate before a high one', '\udc00\ud800'],
  ['a high surrogate at the end', 'ab\udbff'],
  ['C0 control (tab)', 'a\tb'],
  ['NUL', 'a\u0000b'],
  ['DEL', 'a\u007fb'],
  ['C1 control U+0080', 'a\u0080b'],
  ['C1 control NEL U+0085', 'a\u0085b'],
  ['C1 control U+009F', 'a\u009fb'],
  ['right-to-left override U+202E', 'invoice\u202Efdp.exe'],
  ['left-to-right embedding U+202A', '\u202Aab'],
  ['pop directional formatting U+202C', 'ab\u202C'],
  ['left-to-right isolate U+2066', '\u2066ab'],
  ['pop directional isolate U+2069', 'ab\u2069'],
  ['left-to-right mark U+200E', 'a\u200Eb'],
  ['right-to-left mark U+200F', 'a\u200Fb'],
  ['Arabic letter mark U+061C', 'a\u061Cb'],
  ['line separator U+2028', 'a\u2028b'],
  ['paragraph separator U+2029', 'a\u2029b'],
];

const accepted: [string, string][] = [
  ['ASCII with spaces and symbols', 'plan: pro / eu-west #1'],
  ['Latin with accents', 'Café Zürich'],
  ['CJK', '東京'],
  ['Arabic (right-to-left letters, no controls)', 'مرحبا'],
  ['an emoji (a surrogate pair)', 'launch 🚀'],
  ['an emoji sequence with ZWJ', '👩‍💻'],
  ['U+00A0 no-break space (first char after C1)', 'a\u00a0b'],
  ['U+FFFD itself', '\ufffd'],
  ['astral CJK at both ends', '\u{20000}x\u{2A6DF}'],
];

describe('the text rule (tags and externalId)', () => {
  it.each(refused)('refuses %s', (_name, text) => {
    expect(Value.Check(Tag, text)).toBe(false);
    expect(Value.Check(ExternalId, text)).toBe(false);
  });

  it.each(accepted)('accepts %s', (_name, text) => {
    expect(Value.Check(Tag, text)).toBe(true);
    expect(Value.Check(ExternalId, text)).toBe(true);
  });

  it('still refuses a comma in a tag, not in an externalId', () => {
    expect(Value.Check(Tag, 'a,b')).toBe(false);
    expect(Value.Check(ExternalId, 'a,b')).toBe(true);
  });
});

describe('textProblem', () => {
  it('names what breaks the rule, and where', () => {
    expect(textProblem('invoice\u202Efdp')).toBe('bidirectional control U+202E at index 7');
    expect(textProblem('ab\ud800')).toBe('lone UTF-16 surrogate U+D800 at index 2');
    expect(textProblem('\udc00')).toBe('lone UTF-16 surrogate U+DC00 at index 0');
    expect(textProblem('a\u0085')).toBe('control character U+0085 at index 1');
    expect(textProblem('a\u2028')).toBe('line separator U+2028 at index 1');
    expect(textProblem('🚀\u2029')).toBe('paragraph separator U+2029 at index 2');
    expect(textProblem('launch 🚀')).toBeUndefined();
  });

  it.each(refused)('finds %s', (_name, text) => expect(textProblem(text)).toBeDefined());
  it.each(accepted)('finds nothing in %s', (_name, text) => expect(textProblem(text)).toBeUndefined());

  it('agrees with the schema pattern on any string of UTF-16 code units', () => {
    const pattern = new RegExp(`^${allowedTextChar()}*$`);
    const unicodePattern = new RegExp(`^${allowedTextChar()}*$`, 'u'); // as Ajv compiles patterns
    const wellFormed = /^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/; // `u` needs well-formed input
    // Code units near every boundary of the rule, and any other unit.
    const unit = fc.oneof(
      fc.constantFrom(0x0, 0x1f, 0x20, 0x7e, 0x7f, 0x9f, 0xa0, 0x61c, 0x200d, 0x200e, 0x200f, 0x2027),
      fc.constantFrom(0x2028, 0x2029, 0x202a, 0x202e, 0x202f, 0x2065, 0x2066, 0x2069, 0x206a),
      fc.constantFrom(0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffd),
      fc.integer({ min: 0, max: 0xffff }),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
        const text = String.fromCharCode(...units);
        const ok = textProblem(text) === undefined;
        expect(pattern.test(text)).toBe(ok);
        if (wellFormed.test(text)) expect(unicodePattern.test(text)).toBe(ok);
      }),
      { numRuns: 5000 },
    );
  });
});
