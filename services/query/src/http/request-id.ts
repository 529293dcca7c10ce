import { randomUUID } from 'node:crypto';

/**
 * `req_` + 24 hex characters (the last 24 of a random UUID: 90 random bits), unique enough to find one
 * request in the logs. randomUUID draws its entropy in batches: randomBytes(12) per request cost a
 * getrandom call each, a visible share of a light query's CPU on a busy machine.
 */
export const newRequestId = (): string => `req_${randomUUID().replaceAll('-', '').slice(8)}`;
