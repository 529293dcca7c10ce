import { describe, expect, it } from 'vitest';
import { areaOf, summarizeProfile, type CpuProfile } from './cpuprofile';

const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });

describe('summarizeProfile', () => {
  it('adds self time per function and area and leaves idle out of the busy time', () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(idle)', '') },
        { id: 2, callFrame: frame('parse', 'file:///w/node_modules/ioredis/built/Parser.js', 9) },
        { id: 3, callFrame: frame('addHash', 'file:///w/libs/store/src/read-fields.ts', 41) },
        { id: 4, callFrame: frame('(garbage collector)', '') },
      ],
      samples: [1, 2, 3, 2, 4],
      timeDeltas: [5000, 1000, 2000, 1000, 1000],
    };
    const s = summarizeProfile(profile);
    expect(s.totalMs).toBe(10);
    expect(s.busyMs).toBe(5);
    expect(s.functions[0]).toEqual({ name: 'parse ioredis/built/Parser.js:10', selfMs: 2, share: 0.4 });
    expect(s.areas.map((a) => a.name)).toEqual(['ioredis', 'libs/store', '(garbage collector)']);
  });
});

describe('areaOf', () => {
  it('names packages, workspaces and node internals', () => {
    expect(areaOf('file:///w/node_modules/@sinclair/typebox/x.js')).toBe('@sinclair/typebox');
    expect(areaOf('file:///w/services/query/src/http/app.ts')).toBe('services/query');
    expect(areaOf('node:internal/streams')).toBe('node:internal');
  });
});
