import type { VerificationEvent } from '@va/contracts';

let seq = 0;

/** A VALID event of key k1 of api/ws at `time` (a fresh requestId each), with `extra` on top. */
export function testEvent(time: number, extra: Partial<VerificationEvent> = {}): VerificationEvent {
  return {
    requestId: `r${seq++}`,
    time,
    workspaceId: 'ws',
    apiId: 'api',
    keyId: 'k1',
    outcome: 'VALID',
    ...extra,
  };
}

/** The groupBy of a query without dimensions. */
export const NO_GROUPS = { key: false, identity: false, tag: false, tags: false } as const;
