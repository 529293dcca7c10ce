/**
 * Fuzzing GET /v1/analytics.getVerifications with 10,000+ random and hostile query strings
 * (wrong types, huge numbers, unicode, injection-looking identifiers, repeats, broken
 * percent-encoding) and auth headers: only 200/400/401/403/404 ever come back, every error
 * in the envelope, and the service still answers afterwards.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ErrorEnvelope } from '@va/contracts';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { scaled } from '@va/testkit/time';

const PATH = '/v1/analytics.getVerifications';
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
let h: QueryHarness;
const keys: Record<string, string> = {};

beforeAll(async () => {
  // A small row cap keeps the wide ranges the fuzzer finds cheap; the rules are the same.
  h = await queryHarness('query fuzz', { env: { MAX_ROWS: '2000' } });
  await h.registerApi('api_fuzz');
  await h.registerApi('api_elsewhere', 'ws_2');
  const t = h.now - 2 * 3_600_000;
  await h.seed(
    Array.from({ length: 50 }, (_, n) => ({
      requestId: `r${n}`,
      time: t - n * 600_000,
      workspaceId: 'ws_1',
      apiId: 'api_fuzz',
      keyId: `key_${n % 3}`,
      outcome: n % 4 === 0 ? ('RATE_LIMITED' as const) : ('VALID' as const),
      ...(n % 2 === 0 && { identity: { id: `id_${n % 5}`, externalId: `ext-${n % 5}` } }),
      ...(n % 3 === 0 && { tags: ['a', `t${n % 4}`] }),
    })),
  );
  keys.valid = await h.rootKey();
  keys.weak = await h.rootKey(['api.other.read_api']);
  keys.revoked = await h.rootKey();
  await h.revoke(keys.revoked);
});
afterAll(() => h.close());

const HOSTILE = [
  'a}{b',
  '{api_fuzz}',
  '*',
  '..',
  '../../etc/passwd',
  '%',
  '%%',
  '%00',
  '\u0000',
  '\u001f',
  ' ',
  ',',
  ',,,',
  'null',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '0x10',
  '1e3',
  '1e400',
  '9'.repeat(400),
  '253402300800000',
  '-1',
  '99999999999999999999',
  "'; DROP TABLE x; --",
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'toString',
  '$ref',
  '\\',
  '"',
  "'",
  '\u202e',
  '😀',
  'é',
  '\uffff',
  'a'.repeat(5000),
  'api.*.read_api',
  'KEYS *',
  'FLUSHALL',
  '\r\nX-Injected: 1',
  'true',
  '[]',
  '{}',
];
const NAMES = ['apiId', 'externalId', 'keyId', 'tag', 'start', 'end', 'groupBy', 'limit', 'orderBy', 'order'];
const GOOD: Record<string, string[]> = {
  apiId: ['api_fuzz', 'api_fuzz', 'api_fuzz', 'api_elsewhere', 'api_none'],
  externalId: ['ext-1', 'ext-2', 'nobody'],
  keyId: ['key_0', 'key_1,key_2', 'key_x'],
  tag: ['a', 't1', 'a,t2', 'zz'],
  start: ['0', String(Date.now() - 86_400_000), String(Date.now() - 3_600_000), '', 'null'],
  end: [String(Date.now()), '253402300799999', '', 'null', String(Date.now() - 7_200_000)],
  groupBy: [
    'key',
    'identity',
    'tag',
    'tags',
    'hour',
    'day',
    'month',
    'key,day',
    'tag,month',
    'identity,hour',
  ],
  limit: ['1', '3', '100', '2000'],
  orderBy: ['time', 'total', 'valid', 'rateLimited'],
  order: ['asc', 'desc'],
};

const name = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);
const valueFor = (param: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...(Object.hasOwn(GOOD, param) ? GOOD[param]! : ['x'])) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE) },
    { weight: 1, arbitrary: fc.integer({ min: -1e15, max: 3e14 }).map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  );
/** Percent-encodes UTF-8 (lone surrogates become U+FFFD), or now and then leaves it raw. */
const encode = (text: string, raw: boolean) =>
  raw
    ? text.replace(/[\s#&?]/g, '')
    : [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const pair = name.chain((n) => fc.tuple(fc.constant(n), valueFor(n), fc.boolean(), fc.nat(9)));
const queryString = fc
  .array(pair, { maxLength: 9 })
  .map((pairs) =>
    pairs.map(([n, v, raw, r]) => `${encode(n, raw && r === 0)}=${encode(v, raw && r === 0)}`).join('&'),
  );
// 403 needs a weak key AND a query valid enough to pass validation (under 1% of random ones), so the
// weak key gets a weight of its own: about a dozen 403s expected per 10,000 runs.
const auth = fc.oneof(
  { weight: 12, arbitrary: fc.constant('valid') },
  { weight: 3, arbitrary: fc.constant('weak') },
  { weight: 1, arbitrary: fc.constantFrom('revoked', 'none', 'unknown', 'malformed', 'garbage') },
);
/** One run per status first, so every path is exercised whatever the seed draws. */
const EXAMPLES: [string, string, string][] = [
  ['apiId=api_fuzz&groupBy=day', 'valid', ''],
  ['apiId=api_fuzz&limit=0', 'valid', ''],
  ['apiId=api_fuzz', 'revoked', ''],
  ['apiId=api_fuzz', 'weak', ''],
  ['apiId=api_elsewhere', 'valid', ''],
];

it(
  `answers ${RUNS} random and hostile queries with 200/400/401/403/404 only`,
  { timeout: scaled(600_000) },
  async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        queryString,
        auth,
        fc.string({ unit: 'binary', maxLength: 30 }),
        async (qs, who, garbage) => {
          const headers: Record<string, string> = {};
          if (who === 'unknown') headers.authorization = 'Bearer vak_00000000000000000000000000000000';
          else if (who === 'malformed') headers.authorization = 'Bearer';
          else if (who === 'garbage')
            headers.authorization = Buffer.from(garbage)
              .toString('latin1')
              .replace(/[^\x20-\x7e]/g, '');
          else if (who !== 'none') headers.authorization = `Bearer ${keys[who]}`;
          const response = await h.app.inject({ method: 'GET', url: `${PATH}?${qs}`, headers });
          seen.set(response.statusCode, (seen.get(response.statusCode) ?? 0) + 1);
          expect([200, 400, 401, 403, 404], `${qs} -> ${response.body.slice(0, 300)}`).toContain(
            response.statusCode,
          );
          const body: unknown = response.json();
          if (response.statusCode === 200) {
            expect(Array.isArray(body)).toBe(true);
          } else {
            const envelope = body as ErrorEnvelope;
            expect(envelope.error.status).toBe(response.statusCode);
            expect(envelope.error.type).toMatch(/\/(invalid_input|unauthorized|forbidden|not_found)$/);
            expect(envelope.meta.requestId).toBe(response.headers['x-request-id']);
          }
        },
      ),
      { numRuns: RUNS, examples: EXAMPLES },
    );
    // The fuzzer must reach every outcome, or it tests less than it claims.
    for (const status of [200, 400, 401, 403, 404])
      expect(seen.get(status) ?? 0, JSON.stringify([...seen])).toBeGreaterThan(0);

    const after = await h.get(`${PATH}?apiId=api_fuzz`, keys.valid);
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual([expect.objectContaining({ total: 50 })]);
    expect((await h.get('/health')).statusCode).toBe(200);
  },
);
