/**
 * Whose limits a request counts against (docs/read-tokens.md, "Limits"): always its root key's (a read
 * token's minting key), and for a read token also its subject's, a share of the root key's, so that one
 * end user flooding with their token leaves the rest to the root key and its other end users.
 */
import { createHash } from 'node:crypto';

export interface LimitOwner {
  /** sha256 of the root key, or of the root key that minted the read token. */
  rootKeyHash: string;
  /** sha256 of a read token's externalId (hashed: key names never carry client strings); null for a root key. */
  subject: string | null;
}

export const subjectOf = (externalId: string): string =>
  createHash('sha256').update(externalId, 'utf8').digest('hex');

/**
 * A subject's limit: `share` of its root key's, rounded down, at least 1 (so that a root key with a
 * limit of 1 still serves its tokens). 0 (no limit) stays 0.
 */
export const subjectLimit = (rootLimit: number, share: number): number =>
  rootLimit <= 0 ? 0 : Math.max(1, Math.floor(rootLimit * share));
