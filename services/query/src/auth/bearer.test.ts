import { describe, expect, it } from 'vitest';
import { bearerToken } from './bearer';
import { canReadApi } from './permissions';

describe('bearerToken', () => {
  it.each([
    ['Bearer vak_abc', 'vak_abc'],
    ['bearer vak_abc', 'vak_abc'],
    ['Bearer   vak_abc ', 'vak_abc'],
  ])('accepts %j', (header, token) => expect(bearerToken(header)).toBe(token));

  it.each([
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'Basic dXNlcjpwdw==',
    'vak_abc',
    'Bearer a b',
    'Bearer é',
    ['Bearer x'],
  ])('rejects %j', (header) => expect(bearerToken(header)).toBeNull());
});

describe('canReadApi', () => {
  it('accepts the wildcard and the API-specific permission only', () => {
    expect(canReadApi(['api.*.read_api'], 'api_1')).toBe(true);
    expect(canReadApi(['api.api_1.read_api'], 'api_1')).toBe(true);
    expect(canReadApi(['api.api_2.read_api'], 'api_1')).toBe(false);
    expect(canReadApi(['api.*.write_api', 'api.api_1.create_key'], 'api_1')).toBe(false);
    expect(canReadApi([], 'api_1')).toBe(false);
  });
});
