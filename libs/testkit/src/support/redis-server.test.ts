// The AOF-tail cut of the crash tests: top-level units of the RESP stream, and a cut that never
// splits a MULTI block and, when asked, reaches back over the last write of a key.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { aofUnits, loseAofTail } from './redis-server';

const resp = (...args: string[]) =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
const multi = (...commands: string[][]) =>
  resp('MULTI') + commands.map((c) => resp(...c)).join('') + resp('EXEC');

const select = resp('SELECT', '0');
const batch1 = multi(['HINCRBY', 'p:g1:{a}:h', 'f', '1'], ['HSET', 'p:g1:{a}:off', 't/0', '9']);
const wm1 = resp('HSET', 'p:g1:wm', 't/0', '9');
const batch2 = multi(['HINCRBY', 'p:g1:{a}:h', 'f', '2'], ['HSET', 'p:g1:{a}:off', 't/0', '19']);
const wm2 = resp('HSET', 'p:g1:wm', 't/0', '19');
const compaction = multi(['SET', 'p:g1:{a}:cmp', '5'], ['DEL', 'p:g1:{a}:h']);
const aof = select + batch1 + wm1 + batch2 + wm2 + compaction;

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function aofDir(content: string): { dir: string; read: () => string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aof-cut-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'appendonlydir'));
  fs.writeFileSync(path.join(dir, 'appendonlydir', 'appendonly.aof.1.base.rdb'), 'REDIS');
  const file = path.join(dir, 'appendonlydir', 'appendonly.aof.1.incr.aof');
  fs.writeFileSync(file, content);
  return { dir, read: () => fs.readFileSync(file, 'latin1') };
}

describe('aofUnits', () => {
  it('splits the stream into MULTI blocks and single commands', () => {
    const units = aofUnits(Buffer.from(aof));
    expect(units.map((u) => aof.slice(u.start, u.end))).toEqual([
      select,
      batch1,
      wm1,
      batch2,
      wm2,
      compaction,
    ]);
  });

  it('leaves out a unit the file cuts short', () => {
    const short = aof.slice(0, aof.length - 3);
    expect(aofUnits(Buffer.from(short)).map((u) => short.slice(u.start, u.end))).toEqual([
      select,
      batch1,
      wm1,
      batch2,
      wm2,
    ]);
  });
});

describe('loseAofTail', () => {
  it('cuts at least `bytes`, at a unit boundary', () => {
    const { dir, read } = aofDir(aof);
    const lost = loseAofTail(dir, compaction.length + 1);
    expect(read()).toBe(select + batch1 + wm1 + batch2);
    expect(lost).toBe(wm2.length + compaction.length);
  });

  it('reaches back over the last write of `losing`', () => {
    const { dir, read } = aofDir(aof);
    loseAofTail(dir, 1, { losing: 'p:g1:wm' });
    expect(read()).toBe(select + batch1 + wm1 + batch2);
  });

  it('loses nothing from a file shorter than `bytes`, unless told what to lose', () => {
    const { dir, read } = aofDir(aof);
    expect(loseAofTail(dir, aof.length + 1)).toBe(0);
    expect(read()).toBe(aof);
    expect(() => loseAofTail(dir, 1, { losing: 'p:g2:wm' })).toThrow(/no write of p:g2:wm/);
  });
});
