/**
 * The switch from generation g to g' at the end of a rebuild (switchGeneration-5.lua): atomic,
 * and only once g' holds every offset g holds, so that counts never go down at the switch.
 */
import type { RedisClient } from './connection';
import { command } from './commands';
import { apiKeys, globalKeys, watermarkKey } from './keys';

export interface BehindPartition {
  field: string;
  /** Offset g holds (wm or an API's off) that g' lacks. */
  needed: number;
  /** wm of g' (-1 = none). */
  has: number;
}

export type SwitchResult =
  | { status: 'switched' }
  | { status: 'behind'; count: number; partitions: BehindPartition[] }
  | { status: 'not-current'; current: number }
  | { status: 'not-ready'; rebuildStatus: string };

export async function switchGeneration(
  redis: RedisClient,
  prefix: string,
  source: number,
  target: number,
  now: number,
): Promise<SwitchResult> {
  const g = globalKeys(prefix);
  // Offset keys of g: apiKeys(...).offsets is `<before>` + apiId + `<after>`.
  const probe = apiKeys({ prefix, generation: source }, '\u0000').offsets;
  const [before, after] = probe.split('\u0000') as [string, string];
  const reply = await command<(string | number)[]>(redis, 'switchGeneration')(
    g.generation,
    g.rebuild,
    watermarkKey({ prefix, generation: source }),
    watermarkKey({ prefix, generation: target }),
    g.apis,
    source,
    target,
    before,
    after,
    now,
  );
  switch (reply[0]) {
    case 'ok':
      return { status: 'switched' };
    case 'gen':
      return { status: 'not-current', current: Number(reply[1]) };
    case 'state':
      return { status: 'not-ready', rebuildStatus: String(reply[1] || 'none') };
    default: {
      const partitions: BehindPartition[] = [];
      for (let n = 2; n + 2 < reply.length; n += 3) {
        partitions.push({ field: String(reply[n]), needed: Number(reply[n + 1]), has: Number(reply[n + 2]) });
      }
      return { status: 'behind', count: Number(reply[1]), partitions };
    }
  }
}
