/**
 * Test helper of the rebuild tests: asks the real query service (createServer, in-process via inject) for
 * the total of every API over all time, with a root key per workspace, and checks what a rebuild
 * promises readers: a total never goes down and never exceeds what was produced.
 */
import type { VerificationEvent } from '@va/contracts';
import type { Config } from '@va/config';
import { createServer } from '@va/query';
import { createRootKey, type RedisClient } from '@va/store';
import { ANSWER_BUDGET_MS } from '@va/testkit/time';

export interface TotalsProbe {
  totals(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

export async function totalsProbe(
  redis: RedisClient,
  config: Config,
  apis: ReadonlyMap<string, string /* workspace */>,
): Promise<TotalsProbe> {
  // The probe checks totals, not speed: on a loaded CI machine an all-time total during the rebuild ran past the
  // default 10 s budget four times in a row.
  const app = await createServer({ redis, config: { ...config, queryTimeoutMs: ANSWER_BUDGET_MS } });
  await app.ready();
  const keys = new Map<string, string>();
  for (const workspaceId of new Set(apis.values())) {
    const { key } = await createRootKey(redis, config.keyPrefix, {
      workspaceId,
      permissions: ['api.*.read_api'],
      now: Date.now(),
    });
    keys.set(workspaceId, key);
  }
  return {
    async totals() {
      const out = new Map<string, number>();
      await Promise.all(
        [...apis].map(async ([apiId, workspaceId]) => {
          const ask = () =>
            app.inject({
              method: 'GET',
              url: `/v1/analytics.getVerifications?apiId=${encodeURIComponent(apiId)}`,
              headers: { authorization: `Bearer ${keys.get(workspaceId)}` },
            });
          let response = await ask();
          // A 503 (time budget spent on an overloaded test machine) says nothing about the totals: ask again,
          // as a client honouring Retry-After would.
          for (let retry = 0; response.statusCode === 503 && retry < 3; retry++) response = await ask();
          if (response.statusCode !== 200)
            throw new Error(`query ${apiId}: ${response.statusCode} ${response.body}`);
          const rows = response.json<{ total: number }[]>();
          out.set(apiId, rows[0]?.total ?? 0);
        }),
      );
      return out;
    },
    close: () => app.close(),
  };
}

/** Watches totals: records every decrease and every total above the events produced so far. */
export class TotalsWatch {
  readonly violations: string[] = [];
  queries = 0;
  private readonly last = new Map<string, number>();

  /** `produced` must be read after the totals (events are listed before they are sent). */
  check(totals: ReadonlyMap<string, number>, produced: readonly VerificationEvent[]): void {
    this.queries++;
    const oracle = new Map<string, number>();
    for (const e of produced) oracle.set(e.apiId, (oracle.get(e.apiId) ?? 0) + 1);
    for (const [apiId, total] of totals) {
      const before = this.last.get(apiId) ?? 0;
      if (total < before) this.violations.push(`${apiId}: total went down from ${before} to ${total}`);
      if (total > (oracle.get(apiId) ?? 0))
        this.violations.push(`${apiId}: total ${total} above the ${oracle.get(apiId) ?? 0} events produced`);
      this.last.set(apiId, total);
    }
  }
}
