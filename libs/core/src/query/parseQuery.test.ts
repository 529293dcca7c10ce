import {
  DEFAULT_MAX_ROWS,
  EXTERNAL_ID_PATTERN,
  GROUP_BY,
  IDENTIFIER_PATTERN,
  MAX_TIME_MS,
  ORDER_BY,
  TAG_PATTERN,
  type FieldError,
} from '@va/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hourOf } from '../time';
import type { ParsedQuery } from '../types';
import { parseQuery } from './parseQuery';

const NOW = Date.UTC(2026, 2, 2, 10, 30); // 2026-03-02T10:30Z
const options = { now: NOW, maxRows: DEFAULT_MAX_ROWS };

const parse = (query: string, opts = options) => parseQuery(new URLSearchParams(query), opts);
const ok = (query: string) => {
  const result = parse(query);
  if (!result.ok) throw new Error(`rejected: ${JSON.stringify(result.errors)}`);
  return result.query;
};
const errors = (query: string, opts = options): FieldError[] => {
  const result = parse(query, opts);
  if (result.ok) throw new Error(`accepted: ${query}`);
  return result.errors;
};
const locations = (query: string) => errors(query).map((e) => e.location);

const base: ParsedQuery = {
  apiId: 'api_1',
  endHour: hourOf(NOW),
  groupBy: { key: false, identity: false, tag: false, tags: false },
};

describe('parseQuery: accepted queries', () => {
  it('needs only apiId; end defaults to now', () => {
    expect(ok('apiId=api_1')).toEqual(base);
  });

  it('truncates start and end to their hours', () => {
    const start = Date.UTC(2026, 0, 1, 9, 5);
    const end = Date.UTC(2026, 0, 2, 9, 59, 59, 999);
    expect(ok(`apiId=api_1&start=${start}&end=${end}`)).toEqual({
      ...base,
      startHour: hourOf(start),
      endHour: hourOf(end),
    });
  });

  it('reads an empty or null start/end as absent', () => {
    expect(ok('apiId=api_1&start=&end=')).toEqual(base);
    expect(ok('apiId=api_1&start=null&end=null')).toEqual(base);
  });

  it('accepts the extremes of the time range', () => {
    expect(ok(`apiId=api_1&start=0&end=${MAX_TIME_MS}`)).toEqual({
      ...base,
      startHour: 0,
      endHour: hourOf(MAX_TIME_MS),
    });
  });

  it('accepts leading zeros in integers', () => {
    expect(ok('apiId=api_1&limit=007').limit).toBe(7);
  });

  it('splits lists on commas and repeats, drops empty items and duplicates', () => {
    const q = ok('apiId=api_1&keyId=k1,k2&keyId=k3&keyId=,k1,,&tag=a&tag=b,c&tag=');
    expect(q.keyIds).toEqual(['k1', 'k2', 'k3']);
    expect(q.tags).toEqual(['a', 'b', 'c']);
  });

  it('treats a list with only empty items as absent', () => {
    expect(ok('apiId=api_1&keyId=&tag=,,&groupBy=')).toEqual(base);
  });

  it('keeps spaces inside tags (a tag may contain them)', () => {
    expect(ok('apiId=api_1&tag=a b, c').tags).toEqual(['a b', ' c']);
  });

  it('reads groupBy as flags and one granularity; a repeated value is fine', () => {
    expect(ok('apiId=api_1&groupBy=key,identity&groupBy=day&groupBy=key').groupBy).toEqual({
      key: true,
      identity: true,
      tag: false,
      tags: false,
      granularity: 'day',
    });
    expect(ok('apiId=api_1&groupBy=tag,hour').groupBy).toMatchObject({ tag: true, granularity: 'hour' });
    expect(ok('apiId=api_1&groupBy=tags,month').groupBy).toMatchObject({ tags: true, granularity: 'month' });
  });

  it('reads limit, orderBy and order', () => {
    expect(ok('apiId=api_1&limit=10&orderBy=total&order=desc')).toEqual({
      ...base,
      limit: 10,
      orderBy: 'total',
      order: 'desc',
    });
    expect(ok('apiId=api_1&order=desc').order).toBe('desc');
    expect(ok('apiId=api_1&groupBy=hour&orderBy=time').orderBy).toBe('time');
  });

  it('accepts externalId with spaces and symbols, but not control characters', () => {
    expect(ok('apiId=api_1&externalId=Org%20%C3%A9%2F1%40x').externalId).toBe('Org é/1@x');
  });

  it('accepts start = end and start in the same hour as end but earlier', () => {
    expect(ok('apiId=api_1&start=1000&end=1000').startHour).toBe(0);
    expect(ok('apiId=api_1&start=1000&end=2000').endHour).toBe(0);
  });

  it('accepts limit up to the configured row cap', () => {
    expect(parse('apiId=api_1&limit=100000').ok).toBe(true);
    expect(
      parseQuery(
        [
          ['apiId', 'a'],
          ['limit', '500'],
        ],
        { now: NOW, maxRows: 500 },
      ).ok,
    ).toBe(true);
  });
});

describe('parseQuery: one error per failure, at query.<param>', () => {
  it.each([
    ['missing apiId', 'groupBy=hour', 'query.apiId'],
    ['empty apiId', 'apiId=', 'query.apiId'],
    ['apiId with a slash and a space', 'apiId=api%2Fmain%20x', 'query.apiId'],
    ['apiId too long', `apiId=${'a'.repeat(256)}`, 'query.apiId'],
    ['apiId given twice', 'apiId=a&apiId=b', 'query.apiId'],
    ['externalId empty', 'apiId=a&externalId=', 'query.externalId'],
    ['externalId with a control character', 'apiId=a&externalId=x%01y', 'query.externalId'],
    ['externalId too long', `apiId=a&externalId=${'x'.repeat(256)}`, 'query.externalId'],
    ['externalId twice', 'apiId=a&externalId=x&externalId=y', 'query.externalId'],
    ['keyId not an identifier', 'apiId=a&keyId=ok,no%20way', 'query.keyId'],
    ['tag with a control character', 'apiId=a&tag=x%0Ay', 'query.tag'],
    ['externalId with a C1 control (U+0085)', 'apiId=a&externalId=x%C2%85y', 'query.externalId'],
    ['externalId with a right-to-left override', 'apiId=a&externalId=x%E2%80%AEy', 'query.externalId'],
    ['externalId with a line separator', 'apiId=a&externalId=x%E2%80%A8y', 'query.externalId'],
    ['tag with a C1 control (U+0080)', 'apiId=a&tag=x%C2%80y', 'query.tag'],
    ['tag with a bidi isolate (U+2066)', 'apiId=a&tag=%E2%81%A6x', 'query.tag'],
    ['tag with a paragraph separator', 'apiId=a&tag=x%E2%80%A9', 'query.tag'],
    ['tag too long', `apiId=a&tag=${'t'.repeat(129)}`, 'query.tag'],
    ['start not a number', 'apiId=a&start=yesterday', 'query.start'],
    ['start a decimal', 'apiId=a&start=1.5', 'query.start'],
    ['start in exponent form', 'apiId=a&start=1e3', 'query.start'],
    ['start in hex', 'apiId=a&start=0x10', 'query.start'],
    ['start with a plus', 'apiId=a&start=%2B5', 'query.start'],
    ['start with a space', 'apiId=a&start=%2012', 'query.start'],
    ['start negative', 'apiId=a&start=-1', 'query.start'],
    ['start past year 9999', `apiId=a&start=${MAX_TIME_MS + 1}`, 'query.start'],
    ['start twice', 'apiId=a&start=1&start=2', 'query.start'],
    ['end NULL (only null is absent)', 'apiId=a&end=NULL', 'query.end'],
    ['end past year 9999', 'apiId=a&end=99999999999999999999', 'query.end'],
    ['end twice', 'apiId=a&end=1&end=', 'query.end'],
    ['start after end', 'apiId=a&start=7200000&end=3600000', 'query.start'],
    ['start after end in the same hour', 'apiId=a&start=2000&end=1000', 'query.start'],
    ['start after the default end (now)', `apiId=a&start=${NOW + 1}`, 'query.start'],
    ['unknown groupBy', 'apiId=a&groupBy=week', 'query.groupBy'],
    ['two granularities', 'apiId=a&groupBy=hour,month', 'query.groupBy'],
    ['two granularities, repeated', 'apiId=a&groupBy=day&groupBy=hour', 'query.groupBy'],
    ['tag with tags', 'apiId=a&groupBy=tag&groupBy=tags', 'query.groupBy'],
    ['limit 0', 'apiId=a&limit=0', 'query.limit'],
    ['limit 2.5', 'apiId=a&limit=2.5', 'query.limit'],
    ['limit empty', 'apiId=a&limit=', 'query.limit'],
    ['limit over the cap', 'apiId=a&limit=100001', 'query.limit'],
    ['limit twice', 'apiId=a&limit=1&limit=2', 'query.limit'],
    ['unknown orderBy', 'apiId=a&orderBy=popularity', 'query.orderBy'],
    ['orderBy time without a granularity', 'apiId=a&orderBy=time', 'query.orderBy'],
    ['orderBy time with only key grouping', 'apiId=a&groupBy=key&orderBy=time', 'query.orderBy'],
    ['unknown order', 'apiId=a&orderBy=total&order=up', 'query.order'],
    ['order in capitals', 'apiId=a&order=DESC', 'query.order'],
    ['unknown parameter', 'apiId=a&granularity=hour', 'query.granularity'],
    ['parameter names are case-sensitive', 'apiId=a&apiid=a', 'query.apiid'],
  ])('%s', (_name, query, location) => {
    const found = errors(query);
    expect(found.map((e) => e.location)).toEqual([location]);
    for (const e of found) {
      expect(e.message.length).toBeGreaterThan(0);
      expect(e.fix?.length ?? 1).toBeGreaterThan(0);
    }
  });

  it('collects every failure, not just the first', () => {
    expect(
      locations(
        'apiId=a%20b&limit=0&start=x&groupBy=week&orderBy=pop&order=up&tag=a%01&keyId=%20&foo=1',
      ).sort(),
    ).toEqual(
      [
        'query.apiId',
        'query.limit',
        'query.start',
        'query.groupBy',
        'query.orderBy',
        'query.order',
        'query.tag',
        'query.keyId',
        'query.foo',
      ].sort(),
    );
  });

  it('reports each bad list item once, with its value', () => {
    const found = errors(`apiId=a&keyId=good,b%20ad,${'x'.repeat(300)}&keyId=b%20ad`);
    expect(found).toHaveLength(2);
    expect(found.map((e) => e.location)).toEqual(['query.keyId', 'query.keyId']);
    expect(found[0]!.message).toContain('"b ad"');
  });

  it('reports a missing apiId once, as required', () => {
    expect(errors('')).toEqual([
      { location: 'query.apiId', message: 'apiId is required', fix: expect.any(String) },
    ]);
  });

  it('reports a repeated scalar once, not also as invalid', () => {
    expect(errors('apiId=a&limit=x&limit=0')).toHaveLength(1);
    expect(errors('apiId=a&apiId=a')).toHaveLength(1);
  });

  it('reports an unknown parameter once however often it is repeated', () => {
    expect(errors('apiId=a&x=1&x=2')).toEqual([
      { location: 'query.x', message: 'unknown parameter "x"', fix: expect.stringContaining('apiId') },
    ]);
  });

  it('reports two groupBy failures as two entries', () => {
    expect(locations('apiId=a&groupBy=tag,tags,day,hour')).toEqual(['query.groupBy', 'query.groupBy']);
  });

  it('derives no cross-field error from a value that already failed', () => {
    expect(locations('apiId=a&groupBy=week&orderBy=time')).toEqual(['query.groupBy']);
    expect(locations('apiId=a&start=5&end=x')).toEqual(['query.end']);
    expect(locations(`apiId=a&start=${NOW + 1}&end=x`)).toEqual(['query.end']);
    expect(locations('apiId=a&start=5&end=1&end=2')).toEqual(['query.end']);
  });

  it('writes messages from the schema: ranges, enums, patterns', () => {
    const [limit] = errors('apiId=a&limit=0');
    expect(limit!.message).toBe('limit must be an integer from 1 to 100000; got 0');
    expect(limit!.fix).toBe('send an integer from 1 to 100000, or leave limit out');
    const [start] = errors('apiId=a&start=yesterday');
    expect(start!.message).toBe(`start must be an integer from 0 to ${MAX_TIME_MS}; got "yesterday"`);
    const [orderBy] = errors('apiId=a&orderBy=pop');
    expect(orderBy!.message).toContain(ORDER_BY.join(', '));
    const [groupBy] = errors('apiId=a&groupBy=week');
    expect(groupBy!.message).toBe(`every groupBy value must be one of ${GROUP_BY.join(', ')}; got "week"`);
    const [apiId] = errors('apiId=a%2Fb');
    expect(apiId!.message).toBe('apiId must be 1–255 characters of A-Z a-z 0-9 _ - . :; got "a/b"');
  });

  it('refuses lone UTF-16 surrogates (they would be stored as U+FFFD and merge distinct values)', () => {
    const lone = (name: string, value: string) =>
      parseQuery(
        [
          ['apiId', 'a'],
          [name, value],
        ],
        { now: NOW, maxRows: 100_000 },
      );
    for (const [name, location] of [
      ['externalId', 'query.externalId'],
      ['tag', 'query.tag'],
    ] as const) {
      for (const value of ['x\ud800', '\udc00x', 'a\udbffb']) {
        const result = lone(name, value);
        expect(result.ok, `${name}=${JSON.stringify(value)}`).toBe(false);
        if (!result.ok) expect(result.errors.map((e) => e.location)).toEqual([location]);
      }
    }
    expect(lone('tag', 'launch 🚀').ok).toBe(true);
  });

  it('escapes control characters and cuts long values in messages', () => {
    const [e] = errors('apiId=a&externalId=x%00y');
    expect(e!.message).toContain('"x\\u0000y"');
    const [long] = errors(`apiId=${'z'.repeat(300)}`);
    expect(long!.message.length).toBeLessThan(200);
  });

  it('uses the configured row cap as the largest limit', () => {
    const found = errors('apiId=a&limit=501', { now: NOW, maxRows: 500 });
    expect(found).toMatchObject([{ location: 'query.limit', message: expect.stringContaining('1 to 500') }]);
  });
});

describe('parseQuery: property', () => {
  // Values drawn from the contracts' own patterns.
  const identifier = fc.stringMatching(new RegExp(IDENTIFIER_PATTERN));
  const tag = fc.stringMatching(new RegExp(TAG_PATTERN));
  const externalId = fc.stringMatching(new RegExp(EXTERNAL_ID_PATTERN));
  const millis = fc.integer({ min: 0, max: MAX_TIME_MS });

  /** A list written in any of the wire forms: repeats, commas, both, with empty items. */
  const wireList = (name: string, items: string[]) =>
    fc.array(fc.nat({ max: 2 }), { minLength: items.length, maxLength: items.length }).map((splits) => {
      const pairs: [string, string][] = [];
      let current: string[] = [];
      items.forEach((item, i) => {
        current.push(item);
        if (splits[i] === 0 || i === items.length - 1) {
          pairs.push([name, current.join(',')]);
          current = [];
        } else if (splits[i] === 1) current.push(''); // an empty item: ignored
      });
      return pairs;
    });

  const validQuery = fc
    .record(
      {
        apiId: identifier,
        externalId: externalId,
        keyIds: fc.uniqueArray(identifier, { minLength: 1, maxLength: 4 }),
        tags: fc.uniqueArray(tag, { minLength: 1, maxLength: 4 }),
        range: fc.tuple(millis, millis).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
        dims: fc
          .subarray(['key', 'identity', 'tag', 'tags'] as const)
          .filter((d) => !(d.includes('tag') && d.includes('tags'))),
        granularity: fc.constantFrom('hour', 'day', 'month'),
        limit: fc.integer({ min: 1, max: DEFAULT_MAX_ROWS }),
        orderBy: fc.constantFrom(...ORDER_BY),
        order: fc.constantFrom('asc', 'desc'),
      },
      { requiredKeys: ['apiId'] },
    )
    .filter((q) => q.orderBy !== 'time' || q.granularity !== undefined);

  it('round-trips random valid queries in every wire form', () => {
    fc.assert(
      fc.property(
        validQuery.chain((q) => {
          const groupBy = [...(q.dims ?? []), ...(q.granularity ? [q.granularity] : [])];
          return fc
            .tuple(
              q.keyIds ? wireList('keyId', q.keyIds) : fc.constant([]),
              q.tags ? wireList('tag', q.tags) : fc.constant([]),
              groupBy.length > 0 ? wireList('groupBy', groupBy) : fc.constant([]),
            )
            .map((lists) => ({ q, lists }));
        }),
        ({ q, lists }) => {
          const pairs = buildPairs(q, lists.flat());
          const result = parseQuery(pairs, options);
          expect(result).toEqual({ ok: true, query: expected(q) });
        },
      ),
      { numRuns: 300 },
    );
  });

  type Generated = typeof validQuery extends fc.Arbitrary<infer T> ? T : never;

  function buildPairs(q: Generated, lists: [string, string][]): [string, string][] {
    const pairs: [string, string][] = [['apiId', q.apiId], ...lists];
    if (q.externalId !== undefined) pairs.push(['externalId', q.externalId]);
    if (q.range) pairs.push(['start', String(q.range[0])], ['end', String(q.range[1])]);
    if (q.limit !== undefined) pairs.push(['limit', String(q.limit)]);
    if (q.orderBy !== undefined) pairs.push(['orderBy', q.orderBy]);
    if (q.order !== undefined) pairs.push(['order', q.order]);
    return pairs;
  }

  function expected(q: Generated): ParsedQuery {
    const dims = q.dims ?? [];
    const parsed: ParsedQuery = {
      apiId: q.apiId,
      endHour: hourOf(q.range ? q.range[1] : NOW),
      groupBy: {
        key: dims.includes('key'),
        identity: dims.includes('identity'),
        tag: dims.includes('tag'),
        tags: dims.includes('tags'),
        ...(q.granularity && { granularity: q.granularity }),
      },
    };
    if (q.externalId !== undefined) parsed.externalId = q.externalId;
    if (q.keyIds) parsed.keyIds = q.keyIds;
    if (q.tags) parsed.tags = q.tags;
    if (q.range) parsed.startHour = hourOf(q.range[0]);
    if (q.limit !== undefined) parsed.limit = q.limit;
    if (q.orderBy !== undefined) parsed.orderBy = q.orderBy;
    if (q.order !== undefined) parsed.order = q.order;
    return parsed;
  }

  it('never throws and always answers with query.<param> locations, whatever the input', () => {
    const names = fc.constantFrom(
      'apiId',
      'externalId',
      'keyId',
      'tag',
      'start',
      'end',
      'groupBy',
      'limit',
      'orderBy',
      'order',
      'x',
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(names, fc.string({ maxLength: 12 })), { maxLength: 8 }), (pairs) => {
        const result = parseQuery(pairs, options);
        if (!result.ok) {
          expect(result.errors.length).toBeGreaterThan(0);
          for (const e of result.errors) expect(e.location).toMatch(/^query\.\w+$/);
        }
      }),
      { numRuns: 500 },
    );
  });
});
