import { describe, expect, it } from 'vitest';
import { matchesFilters } from './filters';

const alice = { id: 'id_a', externalId: 'alice' };

describe('matchesFilters', () => {
  it('matches everything without filters', () => {
    expect(matchesFilters({}, {})).toBe(true);
    expect(matchesFilters({}, { keyId: 'k', identity: alice, tags: ['x'] })).toBe(true);
  });

  it('externalId: equality on the identity externalId; no identity never matches', () => {
    expect(matchesFilters({ externalId: 'alice' }, { identity: alice })).toBe(true);
    expect(matchesFilters({ externalId: 'bob' }, { identity: alice })).toBe(false);
    expect(matchesFilters({ externalId: 'id_a' }, { identity: alice })).toBe(false); // not the id
    expect(matchesFilters({ externalId: 'alice' }, { keyId: 'k' })).toBe(false);
  });

  it('keyIds: any of', () => {
    expect(matchesFilters({ keyIds: ['k1', 'k2'] }, { keyId: 'k2' })).toBe(true);
    expect(matchesFilters({ keyIds: ['k1', 'k2'] }, { keyId: 'k3' })).toBe(false);
    expect(matchesFilters({ keyIds: ['k1'] }, {})).toBe(false);
    expect(matchesFilters({ keyIds: [] }, { keyId: 'k3' })).toBe(true);
  });

  it('tags: all of (a subset of the tag set, order and repeats ignored)', () => {
    expect(matchesFilters({ tags: ['a', 'b'] }, { tags: ['b', 'c', 'a'] })).toBe(true);
    expect(matchesFilters({ tags: ['a', 'b'] }, { tags: ['a', 'a'] })).toBe(false);
    expect(matchesFilters({ tags: ['a'] }, { tags: [] })).toBe(false);
    expect(matchesFilters({ tags: ['a'] }, {})).toBe(false);
    expect(matchesFilters({ tags: [] }, {})).toBe(true);
  });

  it('regions: any of; no region never matches', () => {
    expect(matchesFilters({ regions: ['eu', 'us'] }, { region: 'us' })).toBe(true);
    expect(matchesFilters({ regions: ['eu'] }, { region: 'us' })).toBe(false);
    expect(matchesFilters({ regions: ['eu'] }, { tags: ['eu'] })).toBe(false);
    expect(matchesFilters({ regions: [] }, {})).toBe(true);
  });

  it('all filters together', () => {
    const q = { externalId: 'alice', keyIds: ['k'], tags: ['t'] };
    expect(matchesFilters(q, { keyId: 'k', identity: alice, tags: ['t', 'u'] })).toBe(true);
    expect(matchesFilters(q, { keyId: 'k', identity: alice, tags: ['u'] })).toBe(false);
    expect(matchesFilters(q, { keyId: 'x', identity: alice, tags: ['t'] })).toBe(false);
  });
});
