/**
 * assignCodes-2.lua, the one Lua command of the dictionaries (keys.ts `dict`, `dictIndex`): its
 * KEYS/ARGV and its reply side by side. dictionary.ts (DictionaryWriter) runs it, pipelined.
 */
import type { ChainableCommander } from 'ioredis';
import { command } from '../commands';
import type { RedisClient } from '../connection';
import { apiKeys, type DictName, type KeySpace } from '../keys';
import { queueCommand } from '../pipeline';

const assignCodesArgs = (space: KeySpace, apiId: string, d: DictName, values: readonly string[]) => [
  apiKeys(space, apiId).dict(d),
  apiKeys(space, apiId).dictIndex(d),
  ...values,
];

/** assignCodes' reply: one code per value, in the order asked. */
export const decodeAssignCodes = (reply: unknown): number[] => (reply as unknown[]).map(Number);

/** Queues one assignCodes call (its reply: decodeAssignCodes). */
export function queueAssignCodes(
  redis: RedisClient,
  pipeline: ChainableCommander,
  space: KeySpace,
  apiId: string,
  d: DictName,
  values: readonly string[],
): void {
  queueCommand(redis, pipeline, 'assignCodes', assignCodesArgs(space, apiId, d, values));
}

/** assignCodes-2.lua: the codes of `values` in dictionary `d` of the API, assigning new ones (append-only). */
export async function assignCodes(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  d: DictName,
  values: readonly string[],
): Promise<number[]> {
  return decodeAssignCodes(
    await command<unknown>(redis, 'assignCodes')(...assignCodesArgs(space, apiId, d, values)),
  );
}
