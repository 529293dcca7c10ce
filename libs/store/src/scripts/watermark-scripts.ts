/**
 * The two Lua commands of a partition's progress (docs/design.md "Write path: exactly once"), each
 * with its KEYS/ARGV and its reply decoded side by side: advanceWatermark-1.lua (the watermark's
 * CAS) and confirmOffset-1.lua (off[api] written again for the replica wait). watermark.ts runs them.
 * None (no message applied yet) is null here and -1 in the scripts (none.ts).
 */
import type { ChainableCommander } from 'ioredis';
import { command } from '../commands';
import type { RedisClient } from '../connection';
import { apiKeys, partitionField, watermarkKey, type KeySpace } from '../keys';
import { queueCommand } from '../pipeline';
import { noneArg, noneOf } from './none';

export type AdvanceResult = { ok: true } | { ok: false; actual: number | null };

/** advanceWatermark-1.lua: CAS wm of one partition, expected -> next. */
export async function advanceWatermark(
  redis: RedisClient,
  space: KeySpace,
  topic: string,
  partition: number,
  expected: number | null,
  next: number,
): Promise<AdvanceResult> {
  const reply = await command<[number, string?]>(redis, 'advanceWatermark')(
    watermarkKey(space),
    partitionField(topic, partition),
    noneArg(expected),
    next,
  );
  return reply[0] === 1 ? { ok: true } : { ok: false, actual: noneOf(reply[1]) };
}

export type ConfirmResult = { status: 'ok' } | { status: 'off'; actual: number | null };

/** Queues one confirmOffset-1.lua call: off[api] of `offsetField` written again if it still holds `off`. */
export function queueConfirmOffset(
  redis: RedisClient,
  pipeline: ChainableCommander,
  space: KeySpace,
  apiId: string,
  offsetField: string,
  off: number,
): void {
  queueCommand(redis, pipeline, 'confirmOffset', [apiKeys(space, apiId).offsets, offsetField, off]);
}

/** confirmOffset's reply. */
export function decodeConfirmOffset(reply: unknown): ConfirmResult {
  const [moved, actual] = reply as [number, string?];
  return moved === 1 ? { status: 'ok' } : { status: 'off', actual: noneOf(actual) };
}
