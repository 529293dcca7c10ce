/** The parser of READ_TOKEN_KEYS (environment.ts): the keys of end-user read tokens. */
const KID = /^[A-Za-z0-9_.-]{1,64}$/;
const MIN_SECRET_BYTES = 32; // HS256 wants a key at least as long as its 256-bit output

/** READ_TOKEN_KEYS: `kid:secret` pairs, comma-separated; a secret may hold `:` but no `,`. */
export function parseReadTokenKeys(raw: string | undefined): { kid: string; secret: string }[] {
  if (raw === undefined || raw.trim() === '') return [];
  const keys = raw.split(',').map((pair) => {
    const colon = pair.indexOf(':');
    const kid = pair.slice(0, colon).trim();
    const secret = pair.slice(colon + 1).trim();
    if (colon < 0 || !KID.test(kid)) {
      throw new Error('READ_TOKEN_KEYS must be kid:secret[,kid:secret], kid of 1-64 A-Z a-z 0-9 _ . -');
    }
    if (new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) {
      throw new Error(`READ_TOKEN_KEYS: the secret of ${kid} must have at least ${MIN_SECRET_BYTES} bytes`);
    }
    return { kid, secret };
  });
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) throw new Error('READ_TOKEN_KEYS: a kid repeats');
  return keys;
}
