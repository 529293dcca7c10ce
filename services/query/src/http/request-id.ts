import { randomBytes } from 'node:crypto';

/** `req_` + 24 hex characters: unique enough to find one request in the logs. */
export const newRequestId = (): string => `req_${randomBytes(12).toString('hex')}`;
