/**
 * The pasted root key or read token. It lives in sessionStorage only (gone with the tab, never in the URL,
 * never in localStorage or a cookie). A read token is a JWT whose claims name the one API (`api`) and
 * externalId (`sub`) it may read; the page reads them (unverified: the service verifies) to fix its filters.
 */
import type { Scope } from './queries';

const STORAGE_KEY = 'va.dashboard.credential';

export type Credential =
  | { kind: 'rootKey'; secret: string }
  | {
      kind: 'readToken';
      secret: string;
      scope: Scope;
      /** Unix ms, from the token's `exp`. */
      expiresAt?: number;
    };

/** The narrow part of the Web Storage API used here (sessionStorage in the page, a Map in tests). */
export interface SecretStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

function base64UrlDecode(part: string): string {
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const bytes = Uint8Array.from(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')), (c) =>
    c.charCodeAt(0),
  );
  return new TextDecoder().decode(bytes);
}

/** The claims of a compact JWS, or undefined when the text is not one. */
export function jwtClaims(secret: string): Record<string, unknown> | undefined {
  const parts = secret.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const claims: unknown = JSON.parse(base64UrlDecode(parts[1]));
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Root key or read token, by shape; a token without the scope claims is refused. */
export function classify(pasted: string): Credential | { error: string } {
  const secret = pasted.trim();
  if (secret.length === 0) return { error: 'Paste a root key or a read token.' };
  const claims = jwtClaims(secret);
  if (!claims) return { kind: 'rootKey', secret };
  // The service's read tokens name the API in `api` and the end user's externalId in `sub`.
  const { api: apiId, sub: externalId, exp } = claims;
  if (typeof apiId !== 'string' || typeof externalId !== 'string')
    return { error: 'This token does not name an API and an externalId.' };
  return {
    kind: 'readToken',
    secret,
    scope: { apiId, externalId },
    ...(typeof exp === 'number' && { expiresAt: exp * 1000 }),
  };
}

export function loadCredential(store: SecretStore): Credential | undefined {
  const saved = store.getItem(STORAGE_KEY);
  if (saved === null) return undefined;
  const credential = classify(saved);
  return 'error' in credential ? undefined : credential;
}

export function saveCredential(store: SecretStore, credential: Credential): void {
  store.setItem(STORAGE_KEY, credential.secret);
}

export function clearCredential(store: SecretStore): void {
  store.removeItem(STORAGE_KEY);
}
