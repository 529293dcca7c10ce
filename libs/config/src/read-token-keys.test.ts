import { describe, expect, it } from 'vitest';
import { loadConfig, parseReadTokenKeys } from './index';

const S1 = 'x'.repeat(32);
const S2 = 'y:with:colons-and-more-than-32-bytes';

describe('READ_TOKEN_KEYS', () => {
  it('is off when unset or empty', () => {
    expect(loadConfig({}).readTokenKeys).toEqual([]);
    expect(parseReadTokenKeys(' ')).toEqual([]);
  });

  it('reads kid:secret pairs in order (the first signs); secrets may hold colons', () => {
    expect(loadConfig({ READ_TOKEN_KEYS: `k2:${S1}, k1:${S2}` }).readTokenKeys).toEqual([
      { kid: 'k2', secret: S1 },
      { kid: 'k1', secret: S2 },
    ]);
  });

  it.each([
    ['no colon', S1],
    ['empty kid', `:${S1}`],
    ['bad kid', `k 1:${S1}`],
    ['short secret', 'k1:short'],
    ['repeated kid', `k1:${S1},k1:${S2}`],
  ])('refuses %s', (_name, raw) => {
    expect(() => parseReadTokenKeys(raw)).toThrow(/READ_TOKEN_KEYS/);
  });
});
