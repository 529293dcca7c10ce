import { describe, expect, it } from 'vitest';
import { parseRebuildState } from './generation-state';
import { escapeGlob } from './connection';

describe('parseRebuildState', () => {
  it('reads the hash written by the rebuild', () => {
    expect(
      parseRebuildState({
        status: 'replaying',
        source: '1',
        target: '2',
        since: '',
        boundary: '',
        group: 'g.rebuild-g2',
        starts: JSON.stringify([{ field: 'ev/0', wm: 41 }]),
        startedAt: '1000',
        heartbeatAt: '2000',
        owner: 'host/12',
        stoppedAt: '',
      }),
    ).toEqual({
      status: 'replaying',
      source: 1,
      target: 2,
      since: null,
      boundary: null,
      group: 'g.rebuild-g2',
      starts: [{ field: 'ev/0', wm: 41 }],
      startedAt: 1000,
      heartbeatAt: 2000,
      owner: 'host/12',
      stoppedAt: null,
      switchedAt: null,
      finishedAt: null,
    });
  });

  it('is null without a (known) status or generations', () => {
    expect(parseRebuildState({})).toBeNull();
    expect(parseRebuildState({ status: 'dancing', source: '1', target: '2' })).toBeNull();
    expect(parseRebuildState({ status: 'done', source: '1' })).toBeNull();
  });
});

describe('escapeGlob', () => {
  it('makes a key prefix match itself only in SCAN MATCH', () => {
    expect(escapeGlob('va:g1:')).toBe('va:g1:');
    expect(escapeGlob('a*b?[c]\\')).toBe('a\\*b\\?\\[c\\]\\\\');
  });
});
