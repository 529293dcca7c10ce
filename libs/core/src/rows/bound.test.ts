import { describe, expect, it } from 'vitest';
import type { ParsedQuery } from '../types';
import { boundRows, everyEventHasAGroup, groupsUpperBound, sliceCount } from './bound';

const H0 = 490_000;
const query = (groupBy: Partial<ParsedQuery['groupBy']>, extra: Partial<ParsedQuery> = {}): ParsedQuery => ({
  apiId: 'api',
  startHour: 0,
  endHour: H0,
  groupBy: { key: false, identity: false, tag: false, tags: false, ...groupBy },
  ...extra,
});

describe('sliceCount', () => {
  it('counts hours, days and calendar months of a range', () => {
    expect(sliceCount(10, 10, 'hour')).toBe(1);
    expect(sliceCount(0, 47, 'day')).toBe(2);
    expect(sliceCount(23, 24, 'day')).toBe(2);
    expect(sliceCount(0, 24 * 31, 'month')).toBe(2); // Jan 1970 has 31 days: hour 744 is Feb 1st
    expect(sliceCount(0, 24 * 31 - 1, 'month')).toBe(1);
    expect(sliceCount(5, 4, 'hour')).toBe(0);
  });
});

describe('groupsUpperBound', () => {
  it('multiplies the entries of the grouped dimensions', () => {
    const sources = { keys: 20, identities: 7, tagSets: 5, tags: 3 };
    expect(groupsUpperBound(query({}).groupBy, sources)).toBe(1);
    expect(groupsUpperBound(query({ key: true, tags: true }).groupBy, sources)).toBe(100);
    expect(groupsUpperBound(query({ identity: true, tag: true }).groupBy, sources)).toBe(21);
  });

  it('bounds regions by their count, and tags with regions by the tag-set codes (one per set and region)', () => {
    const sources = { keys: 20, identities: 7, tagSets: 5, tags: 3, regions: 2 };
    expect(groupsUpperBound(query({ region: true }).groupBy, sources)).toBe(2);
    expect(groupsUpperBound(query({ key: true, region: true }).groupBy, sources)).toBe(40);
    expect(groupsUpperBound(query({ tags: true, region: true }).groupBy, sources)).toBe(5);
    expect(groupsUpperBound(query({ tag: true, region: true }).groupBy, sources)).toBe(6);
  });
});

describe('boundRows', () => {
  const input = { startHour: 0, groupsUpper: 10, maxRows: 1000 };

  it('lets a limit bring any answer under the cap', () => {
    expect(
      boundRows({ ...input, query: query({ key: true, granularity: 'hour' }, { limit: 1000 }) }),
    ).toEqual({
      kind: 'fits',
    });
  });

  it('refuses time-only slices over the cap at once when the start is given', () => {
    expect(boundRows({ ...input, query: query({ granularity: 'hour' }) })).toEqual({
      kind: 'over',
      rowCount: H0 + 1,
    });
    const q = query({ granularity: 'hour' }, { startHour: H0 - 999 });
    expect(boundRows({ ...input, startHour: H0 - 999, query: q })).toEqual({ kind: 'fits' });
    // Without a start the range begins at the first matching data: only the rows tell.
    expect(boundRows({ ...input, query: query({ granularity: 'hour' }, { startHour: undefined }) })).toEqual({
      kind: 'unknown',
    });
    expect(boundRows({ ...input, query: query({}) })).toEqual({ kind: 'fits' });
  });

  it('needs no count when every dictionary entry having data stays under the cap', () => {
    const q = query({ key: true, granularity: 'day' }, { startHour: H0 - 24 * 99 });
    const startHour = H0 - 24 * 99;
    expect(boundRows({ ...input, startHour, query: q })).toEqual({ kind: 'fits' }); // 10 keys x 100 days
    expect(boundRows({ ...input, startHour, groupsUpper: 11, query: q })).toEqual({
      kind: 'countGroups',
      groupsAllowed: 10,
      slices: 100,
    });
  });

  it('asks whether any group has data when the slices alone are over the cap', () => {
    expect(boundRows({ ...input, query: query({ key: true, granularity: 'hour' }) })).toEqual({
      kind: 'countGroups',
      groupsAllowed: 0,
      slices: H0 + 1,
    });
    expect(
      boundRows({ ...input, query: query({ key: true, granularity: 'hour' }, { startHour: undefined }) }),
    ).toEqual({ kind: 'unknown' });
  });

  it('bounds groups without time by the dictionaries', () => {
    expect(boundRows({ ...input, groupsUpper: 1000, query: query({ key: true }) })).toEqual({ kind: 'fits' });
    expect(boundRows({ ...input, groupsUpper: 1001, query: query({ key: true }) })).toEqual({
      kind: 'countGroups',
      groupsAllowed: 1000,
      slices: 1,
    });
  });
});

describe('everyEventHasAGroup', () => {
  it('holds for key and tags groupings without filters only', () => {
    expect(everyEventHasAGroup(query({ key: true, tags: true, granularity: 'hour' }))).toBe(true);
    expect(everyEventHasAGroup(query({ identity: true }))).toBe(false);
    expect(everyEventHasAGroup(query({ tag: true }))).toBe(false);
    expect(everyEventHasAGroup(query({ key: true }, { keyIds: ['k'] }))).toBe(false);
    expect(everyEventHasAGroup(query({ key: true }, { externalId: 'e' }))).toBe(false);
    expect(everyEventHasAGroup(query({ key: true }, { tags: ['t'] }))).toBe(false);
    expect(everyEventHasAGroup(query({ region: true }))).toBe(false);
    expect(everyEventHasAGroup(query({ key: true }, { regions: ['eu'] }))).toBe(false);
  });
});
