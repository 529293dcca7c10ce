/**
 * Small helpers over ioredis pipelines: call a Lua command defined with defineCommand on a
 * pipeline (ioredis copies them there, untyped), and run a pipeline failing on the first error
 * instead of handing back [err, result] pairs.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { defineCommands } from './commands';

type Args = (string | number | Buffer)[];

/**
 * Queues the Lua command `name` on a pipeline of `redis`. The arguments go as ONE array
 * (ioredis flattens it): spreading 100k+ arguments into a call would overflow the stack.
 */
export function queueCommand(redis: Redis, pipeline: ChainableCommander, name: string, args: Args): void {
  defineCommands(redis);
  const fn = (pipeline as unknown as Record<string, (a: Args) => unknown>)[name];
  if (typeof fn !== 'function')
    throw new Error(`no Lua command ${name} (was the pipeline made before defineCommands?)`);
  fn.call(pipeline, args);
}

/** A pipeline with the project's Lua commands on it. */
export function newPipeline(redis: Redis): ChainableCommander {
  defineCommands(redis);
  return redis.pipeline();
}

/** Executes and returns the replies; throws the first command error. */
export async function execPipeline(pipeline: ChainableCommander): Promise<unknown[]> {
  if (pipeline.length === 0) return [];
  const replies = await pipeline.exec();
  if (!replies) throw new Error('pipeline aborted');
  return replies.map(([err, reply]) => {
    if (err) throw err;
    return reply;
  });
}
