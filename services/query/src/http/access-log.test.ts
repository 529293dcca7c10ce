/** #45 access log: the principal kind of a request and which requests get a line. */
import { describe, expect, it } from 'vitest';
import { principalKind, shouldLog } from './access-log';

describe('principalKind', () => {
  it('#45: tells a root key, a read token (JWT-shaped) and no credential apart', () => {
    expect(principalKind('Bearer sk_live_abc')).toBe('rootKey');
    expect(principalKind('Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe('readToken');
    expect(principalKind(undefined)).toBe('none');
    expect(principalKind('Basic dXNlcjpwYXNz')).toBe('none');
  });
});

describe('shouldLog', () => {
  it('#45: on logs all, off none, a share by the random draw, and every 5xx below 1', () => {
    expect(shouldLog(1, 200, () => 0.99)).toBe(true);
    expect(shouldLog(0, 500, () => 0)).toBe(false);
    expect(shouldLog(0.1, 200, () => 0.05)).toBe(true);
    expect(shouldLog(0.1, 200, () => 0.5)).toBe(false);
    expect(shouldLog(0.1, 503, () => 0.5)).toBe(true);
    expect(shouldLog(0.1, 429, () => 0.5)).toBe(false);
  });
});
