/**
 * Traffic for the alert tests under faults: events of one API over the last two days (2% late by up to
 * 20 days), 50 keys, 80% VALID, 95% with one of `identities` identities, some far busier than others
 * (so that "each identity" rules cross their levels at many different moments). Seeded: the same seed
 * gives the same events.
 */
import type { VerificationEvent } from '@va/contracts';
import { seededRandom } from '@va/workload';

const DAY_MS = 86_400_000;

export interface AlertTraffic {
  seed: number;
  events: number;
  identities: number;
  apiId: string;
  workspaceId: string;
  /** requestId = `<requestPrefix><n>` */
  requestPrefix: string;
}

export function alertTraffic(spec: AlertTraffic): VerificationEvent[] {
  const random = seededRandom(spec.seed);
  const now = Date.now();
  return Array.from({ length: spec.events }, (_, n) => {
    const identity = Math.floor(random() ** 2 * spec.identities);
    return {
      requestId: `${spec.requestPrefix}${n}`,
      time: now - Math.floor(random() < 0.02 ? random() * 20 * DAY_MS : random() * 2 * DAY_MS),
      workspaceId: spec.workspaceId,
      apiId: spec.apiId,
      keyId: `key_${Math.floor(random() * 50)}`,
      outcome: random() < 0.8 ? 'VALID' : 'RATE_LIMITED',
      ...(random() < 0.95 && { identity: { id: `id_${identity}`, externalId: `user_${identity}` } }),
    };
  });
}
