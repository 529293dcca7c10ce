import { describe, expect, it } from 'vitest';
import {
  classify,
  clearCredential,
  jwtClaims,
  loadCredential,
  saveCredential,
  type SecretStore,
} from './credential';

const b64url = (value: unknown) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(value))))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const token = (claims: unknown) => `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}.c2ln`;

function memoryStore(): SecretStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

describe('credential', () => {
  it('tells a root key from a read token and reads the scope of the token', () => {
    expect(classify('  va_rootkey_123 ')).toEqual({ kind: 'rootKey', secret: 'va_rootkey_123' });
    const t = token({ api: 'api_1', sub: 'acme ü', exp: 1_900_000_000, aud: 'x' });
    expect(classify(t)).toEqual({
      kind: 'readToken',
      secret: t,
      scope: { apiId: 'api_1', externalId: 'acme ü' },
      expiresAt: 1_900_000_000_000,
    });
  });

  it('refuses an empty paste and a token without a scope', () => {
    expect(classify('  ')).toHaveProperty('error');
    expect(classify(token({ sub: 'x' }))).toHaveProperty('error');
    expect(classify(token({ api: 'a' }))).toHaveProperty('error');
    expect(jwtClaims('a.%%%.c')).toBeUndefined();
  });

  it('keeps the secret in the given store until cleared', () => {
    const store = memoryStore();
    saveCredential(store, { kind: 'rootKey', secret: 'k' });
    expect(loadCredential(store)).toEqual({ kind: 'rootKey', secret: 'k' });
    clearCredential(store);
    expect(loadCredential(store)).toBeUndefined();
    expect(store.map.size).toBe(0);
  });
});
