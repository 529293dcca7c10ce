// The dictionaries against a real Redis: assignCodes (codes appended, the same code for every concurrent
// writer), DictionaryWriter/DictionaryReader and the reader's recovery when Redis lost entries.
import { describe, expect, it } from 'vitest';
import { assignCodes as assignCodesScript } from './scripts/dictionary-scripts';
import { DictionaryReader, DictionaryWriter, emptyMissing } from './dictionary';
import { apiKeys } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import { identityValue } from './dictionary-values';
import { ReadDictionaries } from './read-dictionaries';
import { fileRedis } from './testing/file-redis';

const db = fileRedis('store-dictionary');
const { space, assignCodes } = db;

describe('assignCodes', () => {
  it('appends new values, keeps old codes, handles repeats within one call', async () => {
    expect(await assignCodes('a1', 'k', ['x', 'y', 'x'])).toEqual([0, 1, 0]);
    expect(await assignCodes('a1', 'k', ['z', 'y'])).toEqual([2, 1]);
    expect(await db.redis.lrange(apiKeys(space, 'a1').dict('k'), 0, -1)).toEqual(['x', 'y', 'z']);
    expect(await db.redis.hgetall(apiKeys(space, 'a1').dictIndex('k'))).toEqual({ x: '0', y: '1', z: '2' });
  });

  it('gives every concurrent writer the same code for the same value', async () => {
    const writers = Array.from({ length: 8 }, () => db.connect());
    const values = Array.from({ length: 300 }, (_, n) => `v${n}`);
    try {
      const results = await Promise.all(
        writers.map((client, w) => {
          // Each writer asks in its own order, in chunks, so the calls interleave.
          const mine = [...values].sort(() => (w % 2 === 0 ? 1 : -1)).slice(w * 10);
          const calls: Promise<[string, number][]>[] = [];
          for (let n = 0; n < mine.length; n += 25) {
            const chunk = mine.slice(n, n + 25);
            calls.push(
              assignCodesScript(client, space, 'conc', 'k', chunk).then((codes) =>
                chunk.map((v, m): [string, number] => [v, codes[m]!]),
              ),
            );
          }
          return Promise.all(calls).then((r) => r.flat());
        }),
      );
      const list = await db.redis.lrange(apiKeys(space, 'conc').dict('k'), 0, -1);
      expect(new Set(list).size).toBe(list.length);
      expect(list.length).toBe(values.length);
      for (const [value, code] of results.flat()) expect(list[code]).toBe(value);
    } finally {
      writers.forEach((c) => c.disconnect());
    }
  });
});

describe('DictionaryWriter and DictionaryReader', () => {
  it('assigns through the cache and reads back incrementally, beyond one LRANGE chunk', async () => {
    const writer = new DictionaryWriter(db.redis, space);
    const missing = new Map([['big', { ...emptyMissing(), s: new Set(['', 'a,b']) }]]);
    await writer.assign(missing);
    expect(writer.codesOf('big').s).toEqual(
      new Map([
        ['', 0],
        ['a,b', 1],
      ]),
    );

    const reader = new DictionaryReader(db.redis, space, 'big');
    await reader.load('s');
    expect(reader.all('s')).toEqual(['', 'a,b']);

    const many = Array.from({ length: 25_000 }, (_, n) => `key_${n}`);
    await writer.assign(new Map([['big', { ...emptyMissing(), k: new Set(many) }]]));
    // Assigned in calls of 300 values: the cache holds every one with its code.
    expect(writer.codesOf('big').k.get('key_24999')).toBe(24_999);
    expect(writer.codesOf('big').k.size).toBe(25_000);
    await reader.ensure('k', 24_999);
    expect(reader.size('k')).toBe(25_000);
    expect(reader.value('k', 24_999)).toBe('key_24999');
    expect(reader.code('k', 'key_7')).toBe(7);
    // Incremental: only the new tail is read.
    await writer.assign(new Map([['big', { ...emptyMissing(), k: new Set(['late']) }]]));
    await reader.ensure('k', 25_000);
    expect(reader.value('k', 25_000)).toBe('late');

    const fresh = new DictionaryReader(db.redis, space, 'big');
    expect(await fresh.lookupMany('k', ['key_3', 'nope', 'late'])).toEqual([3, undefined, 25_000]);
    expect(fresh.size('k')).toBe(0);
  });
});

describe('DictionaryReader after Redis lost entries', () => {
  it('notices codes given to other values and reads the dictionary again', async () => {
    await assignCodes('lossy', 'k', ['a', 'b', 'c']);
    const reader = new DictionaryReader(db.redis, space, 'lossy');
    await reader.load('k');
    expect(reader.all('k')).toEqual(['a', 'b', 'c']);
    // Redis "loses" b and c, then other values get codes 1 and 2 (and 3).
    const keys = apiKeys(space, 'lossy');
    await db.redis.del(keys.dict('k'), keys.dictIndex('k'));
    await assignCodes('lossy', 'k', ['a', 'x', 'y', 'z']);
    await reader.ensure('k', 3);
    expect(reader.all('k')).toEqual(['a', 'x', 'y', 'z']);
    expect(reader.code('k', 'b')).toBeUndefined();
    expect(reader.code('k', 'y')).toBe(2);
    expect(reader.resets).toBe(1);
  });
});

describe('ReadDictionaries.load with `since`', () => {
  it('reads Redis again only for a dictionary whose last load began before `since`', async () => {
    await assignCodes('since', 'i', [identityValue('id_1', 'a')]);
    const dicts = new ReadDictionaries(db.redis, space, 'since');
    const before = performance.now();
    await dicts.load(['i'], { since: before });
    expect(dicts.size('i')).toBe(1);
    await assignCodes('since', 'i', [identityValue('id_2', 'b')]);
    // A load began after `before`: it saw everything appended before then, so no read.
    await dicts.load(['i'], { since: before });
    expect(dicts.size('i')).toBe(1);
    // A request arriving now needs what was appended since that load.
    await dicts.load(['i'], { since: performance.now() });
    expect(dicts.size('i')).toBe(2);
    expect(dicts.identityCodesOf('b')).toEqual([1]);
    // Without `since` every load reads the tail (as before).
    await assignCodes('since', 'i', [identityValue('id_3', 'c')]);
    await dicts.load(['i']);
    expect(dicts.size('i')).toBe(3);
  });
});

describe('DictionaryReader.queueTail (a load riding in another pipeline)', () => {
  const values = (n: number) => Array.from({ length: n }, (_, i) => identityValue(`id_${i}`, `e${i}`));

  it('appends the tail read in the pipeline', async () => {
    await assignCodes('tail1', 'i', values(1));
    const reader = new DictionaryReader(db.redis, space, 'tail1');
    await reader.load('i');
    await assignCodes('tail1', 'i', values(3));
    const pipeline = newPipeline(db.redis);
    pipeline.get('unrelated');
    const apply = reader.queueTail(pipeline, ['i']);
    expect(await apply(await execPipeline(pipeline))).toEqual(['i']);
    expect([reader.size('i'), reader.resets]).toEqual([3, 0]);
  });

  it('leaves its reply alone when a load moved the tail between queueing and applying', async () => {
    await assignCodes('tail2', 'i', values(1));
    const reader = new DictionaryReader(db.redis, space, 'tail2');
    await reader.load('i');
    const pipeline = newPipeline(db.redis);
    const apply = reader.queueTail(pipeline, ['i']); // reads from code 0
    await assignCodes('tail2', 'i', values(2));
    await reader.load('i'); // another request's load: now 2 entries
    await assignCodes('tail2', 'i', values(3));
    // The queued reply starts at code 0, which is no longer the last loaded entry: applied, it would
    // look like a Redis that lost entries (a reset) or append twice.
    expect(await apply(await execPipeline(pipeline))).toEqual([]);
    expect([reader.size('i'), reader.resets]).toEqual([2, 0]);
    await reader.load('i');
    expect([reader.size('i'), reader.value('i', 2)]).toEqual([3, values(3)[2]]);
  });
});
