import { describe, expect, it } from 'vitest';
import { applyApiBatchArgs, parseApplyReply } from './apply-scripts';
import type { ApiIncrements } from '../aggregate';
import type { AlertIncrements } from '../alert-detection';

describe('applyApiBatchArgs', () => {
  it('lays out KEYS and ARGV as applyApiBatch.lua reads them', () => {
    const part = Buffer.from('a section part');
    const inc: ApiIncrements = {
      events: 3,
      required: { k: 2, i: 0, s: 1 },
      keepUntil: 5000,
      buckets: [
        {
          r: 'h',
          t: 10,
          expireAt: 999,
          cubes: new Map([
            ['t', new Map([['0', 3]])],
            ['k:0', new Map([['1:0', 3]])],
          ]),
          parts: new Map([['L:f', part]]),
        },
      ],
    };
    const { args, staged } = applyApiBatchArgs({
      space: { prefix: 'p', generation: 2 },
      apiId: 'a',
      increments: inc,
      cas: {
        offsetField: 'topic/0',
        expectedOff: null, // none: -1 to the script
        newOff: 41,
        expectedCmp: 7,
      },
    });
    expect(staged).toBe(0);
    const base = 'p:g2:{a}';
    expect(args).toEqual([
      22,
      `${base}:off`,
      `${base}:cmp`,
      `${base}:dict:k`,
      `${base}:dict:i`,
      `${base}:dict:s`,
      `${base}:idx:h`,
      `${base}:idx:d`,
      `${base}:idx:m`,
      `${base}:dict:k:ix`,
      `${base}:dict:i:ix`,
      `${base}:dict:s:ix`,
      `${base}:dirty`,
      `${base}:stage`,
      'p:{a}:alerts:rules:v',
      'p:{a}:alerts:crossings',
      'p:{a}:alerts:lv:0',
      `${base}:bz`,
      `${base}:carry`,
      `${base}:h:10:parts`,
      `${base}:h:10:t`,
      `${base}:h:10:k:0`,
      `${base}:h:10:L:f`,
      'topic/0',
      -1,
      41,
      7,
      2,
      0,
      1,
      1,
      5000,
      0,
      -1, // no alert counters: the rules' version is not checked
      0,
      0,
      0, // nor their level table
      -1, // no event counted in billing zones' edges: no since recorded
      'h',
      10,
      999,
      2,
      't',
      1,
      '0',
      3,
      'k:0',
      1,
      '1:0',
      3,
      1,
      'L:f',
      part,
    ]);
  });

  it('lays out the alert counters after the buckets: keys, then counter, period, levels and members', () => {
    const inc: ApiIncrements = { events: 0, required: { k: 0, i: 0, s: 0 }, keepUntil: 0, buckets: [] };
    const alerts: AlertIncrements = {
      rulesVersion: 3,
      now: 40 * 86_400_000,
      counters: [
        {
          counterId: 'c1',
          period: 'month',
          periodStart: 1000,
          expireAt: 2000,
          levels: [5, 9],
          members: new Map([
            ['alice', 2],
            ['bob', 1],
          ]),
        },
      ],
    };
    const cas = { offsetField: 'topic/0', expectedOff: 1, newOff: 2, expectedCmp: null };
    const { args } = applyApiBatchArgs({
      space: { prefix: 'p', generation: 2 },
      apiId: 'a',
      increments: inc,
      cas,
      alerts,
    });
    expect(args[0]).toBe(20);
    expect(args.slice(14, 17)).toEqual([
      'p:{a}:alerts:rules:v',
      'p:{a}:alerts:crossings',
      'p:{a}:alerts:lv:3',
    ]);
    expect(args.slice(17, 19)).toEqual(['p:g2:{a}:bz', 'p:g2:{a}:carry']);
    expect(args.slice(19, 21)).toEqual(['p:g2:{a}:alerts:n:c1:1000', 'p:{a}:alerts:x:month:1000']);
    expect(args.slice(21 + 10)).toEqual([
      3,
      1,
      40 * 86_400_000,
      1, // the level table must exist
      -1, // no billing zones
      'c1',
      'month',
      1000,
      2000,
      2,
      5,
      9,
      2,
      'alice',
      2,
      'bob',
      1,
    ]);
  });

  it('parses every reply', () => {
    expect(parseApplyReply(['ok'])).toEqual({ status: 'ok' });
    expect(parseApplyReply(['off', '12'])).toEqual({ status: 'off', actual: 12 });
    expect(parseApplyReply(['cmp', '-1'])).toEqual({ status: 'cmp', actual: null });
    expect(parseApplyReply(['dict', 'k', 3])).toEqual({ status: 'dict', dict: 'k', length: 3 });
    expect(parseApplyReply(['rules', '4'])).toEqual({ status: 'rules', version: 4 });
    expect(() => parseApplyReply('nope')).toThrow();
  });
});
