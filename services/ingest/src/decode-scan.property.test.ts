/**
 * The byte scanner (decode-scan.ts) against the reference decoder (JSON.parse + the compiled
 * schema): on every input, decodeEvent gives exactly what decodeEventReference gives (the event,
 * or the DLQ reason and its detail). Events built field by field from valid and invalid parts near
 * every limit, the same with bytes broken, and random bytes.
 *
 * What a run proves does not depend on the machine: a fixed set of seeds always runs (the same
 * 42,000 cases everywhere, a few seconds), then random seeds for a time-boxed extension
 * (TEST_PROPERTY_EXTENSION_MS, see @va/testkit/time) that ends when its time is up, never failing
 * for it. A failure's message names the seed that reproduces it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTCOMES } from '@va/contracts';
import { propertyExtensionMs, repeatFor, scaled } from '@va/testkit/time';
import { goodEvent } from './bad-events';
import { decodeContext, decodeEvent, decodeEventReference, MAX_FUTURE_MS } from './decode';
import { scanEvent } from './decode-scan';

const DAY = 86_400_000;
const retention = { hourMs: 35 * DAY, dayMs: 400 * DAY, monthMs: 5 * 366 * DAY };
const now = Date.UTC(2026, 10, 25, 12, 30);
const ctx = decodeContext(now, retention);

/** Characters that sit on either side of some rule: classes, JSON escapes, the text rule, UTF-16. */
const UNITS = [
  ...'aZ09_-.:',
  ...', "\\/{}[]',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u0085',
  'é',
  '✓',
  '😀',
  '\u061c',
  '\u202e',
  '\u2028',
  '\u2066',
  '\ufeff',
  '\ufffd',
  '\ud800',
  '\udc00',
];
const tricky = (maxLength: number) => fc.string({ unit: fc.constantFrom(...UNITS), maxLength });
const identifierLike = fc.oneof(
  { weight: 12, arbitrary: fc.stringMatching(/^[A-Za-z0-9_\-.:]{1,12}$/) },
  { weight: 2, arbitrary: tricky(6) },
  // Around the length limits (128 for tags, 255 for the rest).
  { weight: 1, arbitrary: fc.constantFrom(0, 1, 127, 128, 129, 254, 255, 256).map((n) => 'k'.repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom(127, 128, 129, 254, 255).map((n) => '✓'.repeat(n)) },
);
const textLike = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-z0-9 @.-]{0,10}$/) },
  { weight: 4, arbitrary: tricky(8) },
  { weight: 1, arbitrary: identifierLike },
);

/** A JSON value as text: mostly what JSON.stringify writes, sometimes escapes it would not. */
const stringJson = (s: fc.Arbitrary<string>) =>
  fc.tuple(s, fc.nat(9)).map(([text, how]) => {
    const json = JSON.stringify(text);
    if (how === 0 && text.length > 0) {
      const unit = text.charCodeAt(0).toString(16).padStart(4, '0');
      return `"\\u${unit}${json.slice(2)}`; // the same text, first unit escaped
    }
    return json;
  });
const otherJson = fc.constantFrom('null', 'true', '0', '{}', '[]', '"x"', '-1', '1.5', '[1]', '{"a":1}');

const timeJson = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: now - 40 * DAY, max: now }).map(String) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        now + MAX_FUTURE_MS,
        now + MAX_FUTURE_MS + 1,
        ctx.expiredBefore,
        ctx.expiredBefore - 1,
        0,
        2 ** 53 - 1,
        2 ** 53,
        10 ** 15 - 1,
        10 ** 15,
      )
      .map(String),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      `${now}.0`,
      `${now}.5`,
      `${now / 1000}e3`,
      `1.7E12`,
      `0${now}`,
      '-0',
      `-${now}`,
      '00',
      `"${now}"`,
      '1e400',
      `${now}e`,
    ),
  },
  { weight: 1, arbitrary: otherJson },
);

const outcomeJson = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...OUTCOMES).map((o) => JSON.stringify(o)) },
  {
    weight: 1,
    arbitrary: stringJson(fc.constantFrom('valid', 'UNKNOWN', '', 'VALID ', 'EXPIRE', 'EXPIREDX')),
  },
  { weight: 1, arbitrary: fc.constantFrom('"\\u0056ALID"', '"VALID\\"', 'null', '1', '"VAL"ID"') },
);

const ws = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  ');

/** An object as text from [key, value] pairs, with optional whitespace around every token. */
const objectJson = (entries: fc.Arbitrary<[string, string][]>) =>
  fc.tuple(entries, fc.array(ws, { minLength: 64, maxLength: 64 })).map(([pairs, spaces]) => {
    let i = 0;
    const s = () => spaces[i++ % spaces.length]!;
    const body = pairs.map(([k, v]) => `${s()}${k}${s()}:${s()}${v}${s()}`).join(',');
    return `{${body.length > 0 ? body : s()}}`;
  });

const identityJson = fc.oneof(
  {
    weight: 6,
    arbitrary: objectJson(
      fc
        .tuple(stringJson(identifierLike), stringJson(textLike), fc.boolean())
        .map(([id, ext, swap]): [string, string][] =>
          swap
            ? [
                ['"externalId"', ext],
                ['"id"', id],
              ]
            : [
                ['"id"', id],
                ['"externalId"', ext],
              ],
        ),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"id":"i"}',
      '{"externalId":"e"}',
      '{"id":"i","externalId":"e","x":1}',
      '{"id":"i","id":"j","externalId":"e"}',
      '{"id":"i","externalId":"e","externalId":"f"}',
      '{"\\u0069d":"i","externalId":"e"}',
      '{"id":"i","externalId":"e",}',
      '{"id":"i" "externalId":"e"}',
    ),
  },
  { weight: 1, arbitrary: otherJson },
);

const tagsJson = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.array(stringJson(textLike), { maxLength: 22 }), ws)
      .map(([tags, space]) => `[${space}${tags.join(`${space},`)}]`),
  },
  { weight: 1, arbitrary: fc.constantFrom('["a",]', '["a" "b"]', '["a",1]', '[null]', '[', '["a"') },
  { weight: 1, arbitrary: otherJson },
);

const field = (key: string, value: fc.Arbitrary<string>, required = true) =>
  fc.oneof(
    {
      weight: required ? 20 : 3,
      arbitrary: value.map((v): [string, string][] => [[JSON.stringify(key), v]]),
    },
    { weight: required ? 1 : 3, arbitrary: fc.constant<[string, string][]>([]) },
    // The key twice, or escaped.
    {
      weight: 1,
      arbitrary: fc.tuple(value, value).map(([a, b]): [string, string][] => [
        [JSON.stringify(key), a],
        [JSON.stringify(key), b],
      ]),
    },
    {
      weight: 1,
      arbitrary: value.map((v): [string, string][] => [
        [`"\\u${key.charCodeAt(0).toString(16).padStart(4, '0')}${key.slice(1)}"`, v],
      ]),
    },
  );

/** Free text that passes the text rule: what the scanner must accept. */
const cleanText = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9 @.-]{0,10}$/),
  fc.string({
    unit: fc.constantFrom(...'aZ09 _-.:/{}[]', 'é', '✓', '😀', '\ufeff', '\ufffd'),
    minLength: 1,
    maxLength: 8,
  }),
);
const cleanIdentifier = fc.oneof(
  { weight: 9, arbitrary: fc.stringMatching(/^[A-Za-z0-9_\-.:]{1,12}$/) },
  { weight: 1, arbitrary: fc.constant('k'.repeat(255)) },
);
const json = (value: fc.Arbitrary<unknown>) => value.map((v) => JSON.stringify(v));
const present = (key: string, value: fc.Arbitrary<string>) =>
  value.map((v): [string, string][] => [[JSON.stringify(key), v]]);
const optional = (key: string, value: fc.Arbitrary<string>) =>
  fc.oneof(fc.constant<[string, string][]>([]), present(key, value));

/** A valid event as producers write it, in any key order and spacing: the scanner's ground. */
const cleanEventJson = fc
  .tuple(
    present('requestId', json(cleanText)),
    present('time', json(fc.integer({ min: ctx.expiredBefore - DAY, max: now + 2 * MAX_FUTURE_MS }))),
    present('workspaceId', json(cleanIdentifier)),
    present('apiId', json(cleanIdentifier)),
    present('keyId', json(cleanIdentifier)),
    present('outcome', json(fc.constantFrom(...OUTCOMES))),
    optional('identity', json(fc.record({ id: cleanIdentifier, externalId: cleanText }))),
    optional(
      'tags',
      json(
        fc.array(
          cleanText.filter((t) => !t.includes(',')),
          { maxLength: 20 },
        ),
      ),
    ),
    optional('region', json(fc.oneof(cleanText, fc.constant('')))),
  )
  .chain((fields) => fc.shuffledSubarray(fields.flat(), { minLength: fields.flat().length }))
  .chain((pairs) => objectJson(fc.constant(pairs)));

/** An event as JSON text with something wrong, or nearly: near every rule and limit. */
const noisyEventJson = fc
  .tuple(
    field('requestId', stringJson(textLike)),
    field('time', timeJson),
    field('workspaceId', stringJson(identifierLike)),
    field('apiId', stringJson(identifierLike)),
    field('keyId', stringJson(identifierLike)),
    field('outcome', outcomeJson),
    field('identity', identityJson, false),
    field('tags', tagsJson, false),
    field('region', fc.oneof(stringJson(textLike), otherJson), false),
    fc.oneof(
      { weight: 8, arbitrary: fc.constant<[string, string][]>([]) },
      {
        weight: 1,
        arbitrary: fc.tuple(stringJson(tricky(5)), otherJson).map((e): [string, string][] => [e]),
      },
    ),
  )
  .chain((fields) => fc.shuffledSubarray(fields.flat(), { minLength: fields.flat().length }))
  .chain((pairs) => objectJson(fc.constant(pairs)))
  .chain((text) =>
    fc.oneof(
      { weight: 12, arbitrary: fc.constant(text) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          `\ufeff${text}`,
          `${text}x`,
          `${text},`,
          `[${text}]`,
          ` ${text} \n`,
          `\f${text}`,
          `${text}\u00a0`,
          text.replace(':', ' :\u00a0'),
        ),
      },
    ),
  );

const eventJson = fc.oneof(cleanEventJson, noisyEventJson);

/** Bytes broken: one replaced, inserted or removed, or the message cut short. */
const broken = fc
  .tuple(eventJson, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(3))
  .map(([text, at, byte, how]) => {
    const bytes = Buffer.from(text);
    const i = at % bytes.length;
    if (how === 0) bytes[i] = byte;
    if (how === 1) return Buffer.concat([bytes.subarray(0, i), Buffer.of(byte), bytes.subarray(i)]);
    if (how === 2) return Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
    if (how === 3) return bytes.subarray(0, i);
    return bytes;
  });

const receivedAt = fc.oneof(fc.constant(undefined), fc.constantFrom(now, now - 10 * 60_000, Number.NaN, 0));

let scanned = 0;
function agrees(value: Buffer, received: number | undefined, checkExpiry: boolean): void {
  const options = { receivedAt: received, checkExpiry };
  if (scanEvent(value) !== undefined) scanned++;
  expect(decodeEvent(value, ctx, options)).toEqual(decodeEventReference(value, ctx, options));
}

/** The fixed part: these seeds, this many runs each, on every machine. */
const FIXED_SEEDS = [4501, 4502, 4503, 4504, 4505, 4506, 4507, 4508];
const RUNS_PER_SEED = 2_500;
/** The random part: new seeds for this long after the fixed ones, in rounds of this many runs. */
const EXTENSION_MS = propertyExtensionMs(1_500);
const EXTENSION_RUNS = 500;

/**
 * fc.assert with each of `seeds`, RUNS_PER_SEED runs each: the same cases on every run and machine.
 * A turn of the event loop between seeds: one long synchronous stretch made vitest's worker miss
 * its own RPC deadline ("Timeout calling onTaskUpdate").
 */
async function assertSeeds(
  property: fc.IPropertyWithHooks<unknown[]>,
  seeds: readonly number[],
): Promise<void> {
  for (const seed of seeds) {
    fc.assert(property, { seed, numRuns: RUNS_PER_SEED });
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Then new random seeds until the extension's time is up (fewer cases on a slower machine). */
async function extend(property: fc.IPropertyWithHooks<unknown[]>): Promise<void> {
  await repeatFor(EXTENSION_MS, () => fc.assert(property, { numRuns: EXTENSION_RUNS }));
}

describe('decodeEvent (scanner + reference) equals the reference decoder', () => {
  // 20,000 fixed cases: about 12 s alone, over a minute beside the whole suite on a loaded 2-core machine.
  const FIXED_CASES_TIMEOUT = { timeout: scaled(180_000) };

  it(
    'on 20,000 events built from valid and invalid parts (fixed seeds; then random ones, time-boxed), and most take the fast path',
    FIXED_CASES_TIMEOUT,
    async () => {
      const property = fc.property(eventJson, receivedAt, fc.boolean(), (text, received, checkExpiry) =>
        agrees(Buffer.from(text), received, checkExpiry),
      );
      scanned = 0;
      await assertSeeds(property, FIXED_SEEDS);
      // Not vacuous: a good share of the cases is decided by the scanner, not by the fallback.
      expect(scanned).toBeGreaterThan(FIXED_SEEDS.length * RUNS_PER_SEED * 0.25);
      await extend(property);
    },
  );

  it(
    'on 10,000 of them with one byte replaced, inserted or removed, or cut short (fixed seeds; then random ones, time-boxed)',
    FIXED_CASES_TIMEOUT,
    async () => {
      const property = fc.property(broken, receivedAt, (bytes, received) => agrees(bytes, received, true));
      scanned = 0;
      await assertSeeds(property, FIXED_SEEDS.slice(0, 4));
      expect(scanned).toBeGreaterThan(0);
      await extend(property);
    },
  );

  it('on 10,000 random byte strings', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => agrees(Buffer.from(bytes), undefined, true)),
      { seed: FIXED_SEEDS[0], numRuns: 10_000 },
    );
  });

  it('on runs of events whose tag lists and regions repeat in any order and with repeats (the interned tag sets)', () => {
    const tag = fc.constantFrom('a', 'b', 'c', 'd', 'é');
    const tagLists = fc.array(fc.array(tag, { maxLength: 5 }), { minLength: 2, maxLength: 6 });
    const regions = [undefined, '', 'eu', 'us-east', 'é,1'];
    fc.assert(
      fc.property(tagLists, fc.array(fc.nat(), { minLength: 10, maxLength: 40 }), (lists, picks) => {
        for (const n of picks) {
          const event = goodEvent(now - 1000, { tags: lists[n % lists.length]! });
          const region = regions[(n >> 3) % regions.length];
          if (region === undefined) delete event.region;
          else event.region = region;
          const value = Buffer.from(JSON.stringify(event));
          expect(scanEvent(value)).toEqual(decodeEventReference(value, ctx));
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('on the shapes producers write (JSON.stringify, compact or indented), with the scanner deciding', () => {
    const event = goodEvent(now - 1000, { identity: { id: 'ident_7', externalId: 'Kundin 7 ✓' } });
    const value = Buffer.from(JSON.stringify(event));
    expect(scanEvent(value)).toEqual(decodeEventReference(value, ctx));
    expect(scanEvent(Buffer.from(JSON.stringify(event, null, 2)))).toBeDefined();
  });
});
