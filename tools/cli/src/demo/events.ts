/**
 * The demo data set (pure, seeded): a small, realistic day of one API — a few keys, some with an
 * identity (an end customer's externalId), plan and region tags, mostly VALID with the other
 * outcomes in believable shares — spread over the last hours before `now`.
 */
import type { VerificationEvent } from '@va/contracts';

export interface DemoOptions {
  workspace: string;
  api: string;
  events: number;
  /** Events fall in [now - hours, now - 1 min). */
  hours: number;
  now: number;
  seed: number;
}

const KEYS = [
  {
    keyId: 'key_checkout',
    identity: { id: 'id_acme', externalId: 'acme-corp' },
    tags: ['plan:pro', 'region:eu'],
  },
  {
    keyId: 'key_mobile',
    identity: { id: 'id_acme', externalId: 'acme-corp' },
    tags: ['plan:pro', 'region:us'],
  },
  {
    keyId: 'key_cli',
    identity: { id: 'id_initech', externalId: 'initech' },
    tags: ['plan:free', 'region:eu'],
  },
  { keyId: 'key_partner', identity: { id: 'id_globex', externalId: 'globex' }, tags: ['plan:enterprise'] },
  { keyId: 'key_legacy', identity: undefined, tags: [] },
] as const;

/** Cumulative shares: VALID most of the time, then the refusals an API sees in practice. */
const OUTCOMES: readonly [VerificationEvent['outcome'], number][] = [
  ['VALID', 0.86],
  ['RATE_LIMITED', 0.92],
  ['USAGE_EXCEEDED', 0.95],
  ['EXPIRED', 0.97],
  ['NOT_FOUND', 0.985],
  ['DISABLED', 0.99],
  ['FORBIDDEN', 0.995],
  ['INSUFFICIENT_PERMISSIONS', 1],
];

/** mulberry32: small, fast, good enough for demo data. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function demoEvents(options: DemoOptions): VerificationEvent[] {
  const next = random(options.seed);
  const end = options.now - 60_000;
  const span = options.hours * 3_600_000 - 60_000;
  return Array.from({ length: options.events }, (_, n) => {
    // Busier keys first: the checkout key carries about half the traffic.
    const key = KEYS[Math.min(KEYS.length - 1, Math.floor(-Math.log2(1 - next() * 0.97)))]!;
    const r = next();
    const outcome = OUTCOMES.find(([, upTo]) => r < upTo)![0];
    const event: VerificationEvent = {
      requestId: `demo-${options.seed}-${n}`,
      time: Math.floor(end - next() * span),
      workspaceId: options.workspace,
      apiId: options.api,
      keyId: key.keyId,
      outcome,
      region: 'eu-west-1',
    };
    if (key.identity) event.identity = { ...key.identity };
    if (key.tags.length > 0) event.tags = [...key.tags];
    return event;
  });
}
