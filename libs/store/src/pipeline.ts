/**
 * Small helpers over ioredis pipelines: call a Lua command defined with defineCommand on a
 * pipeline (ioredis copies them there, untyped), and run a pipeline failing on the first error
 * instead of handing back [err, result] pairs.
 *
 * On a Redis Cluster an ioredis pipeline must stay on one node ("All keys in the pipeline should belong
 * to the same slots allocation group"), while ours hold commands of many APIs (many slots). There
 * newPipeline records the commands instead, and exec() sends them as one real pipeline per group of
 * slots served by the same node (at once, in order within each group), then puts the replies back in
 * the order they were queued. Commands of one slot keep their relative order; across slots there was
 * never an order on a cluster anyway. Commands a node refuses because their slot is served elsewhere
 * now (MOVED after a failover, ASK, TRYAGAIN, CLUSTERDOWN: not run) are sent again with a fresh slot
 * map; the others are not, so no write is applied twice.
 */
import { Command, type ChainableCommander, type Cluster } from 'ioredis';
import { defineCommands, scriptKeyCount } from './commands';
import { isCluster, type RedisClient } from './connection';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Args = (string | number | Buffer)[];

/**
 * Queues the Lua command `name` on a pipeline of `redis`. The arguments go as ONE array
 * (ioredis flattens it): spreading 100k+ arguments into a call would overflow the stack.
 */
export function queueCommand(
  redis: RedisClient,
  pipeline: ChainableCommander,
  name: string,
  args: Args,
): void {
  defineCommands(redis);
  const fn = (pipeline as unknown as Record<string, (a: Args) => unknown>)[name];
  if (typeof fn !== 'function')
    throw new Error(`no Lua command ${name} (was the pipeline made before defineCommands?)`);
  fn.call(pipeline, args);
}

/** A pipeline with the project's Lua commands on it (one per node group on a cluster, see above). */
export function newPipeline(redis: RedisClient): ChainableCommander {
  defineCommands(redis);
  return isCluster(redis) ? slotPipeline(redis) : redis.pipeline();
}

/**
 * Redis replicates asynchronously: a write a master acknowledged can vanish when that master dies
 * before its replicas have it and one of them takes over. A writer that must not advance past
 * such a write (ingest's partition watermark lives in another slot, maybe on another master)
 * asks for WAIT: after its commands, on each master it wrote to, `WAIT replicas timeoutMs`.
 * WAIT counts acknowledgements of the connection's last write, so it also covers the writes the
 * connection made before (replication is ordered).
 */
export interface ReplicaWait {
  /** Replicas that must hold the writes (0 = no WAIT). */
  replicas: number;
  timeoutMs: number;
}

/** Fewer replicas than asked acknowledged the writes in time: they may be lost in a failover. */
export class ReplicaAckError extends Error {
  constructor(acked: number, { replicas, timeoutMs }: ReplicaWait) {
    super(`WAIT: ${acked} of ${replicas} replicas acknowledged the writes within ${timeoutMs} ms`);
    this.name = 'ReplicaAckError';
  }
}

/** Takes WAIT's reply off the end of a pipeline's replies and checks it. */
function takeAcks(replies: [Error | null, unknown][], wait: ReplicaWait): void {
  const [err, acked] = replies.pop() ?? [new Error('pipeline aborted'), 0];
  if (err) throw err;
  if (Number(acked) < wait.replicas) throw new ReplicaAckError(Number(acked), wait);
}

/**
 * Executes and returns the replies; throws the first command error. With `wait`, the writes must
 * also reach that many replicas of every master involved, or ReplicaAckError is thrown (the
 * writes stand on the masters; the caller must not build on them).
 */
export async function execPipeline(pipeline: ChainableCommander, wait?: ReplicaWait): Promise<unknown[]> {
  if (pipeline.length === 0) return [];
  const waiting = wait !== undefined && wait.replicas > 0;
  const slotExec = (pipeline as { [SLOT_EXEC]?: SlotExec })[SLOT_EXEC];
  let replies: [Error | null, unknown][] | null;
  if (slotExec) replies = await slotExec(waiting ? wait : undefined);
  else {
    if (waiting) pipeline.wait(wait.replicas, wait.timeoutMs);
    replies = await pipeline.exec();
    if (replies && waiting) takeAcks(replies, wait);
  }
  if (!replies) throw new Error('pipeline aborted');
  return replies.map(([err, reply]) => {
    if (err) throw err;
    return reply;
  });
}

interface Queued {
  name: string;
  args: unknown[];
}

/** Hash slot of a queued command: the slot of its keys (ioredis' own key table), -1 = no key. */
export function slotOf({ name, args }: Queued): number {
  const flat = (args as unknown[]).flat(Infinity) as (string | number | Buffer)[];
  const keys = scriptKeyCount(name);
  let command: Command;
  if (keys === undefined) {
    command = name === 'call' ? new Command(String(flat[0]), flat.slice(1)) : new Command(name, flat);
  } else {
    // A script call: EVALSHA sha numkeys key... (variable-key scripts carry numkeys first).
    command = new Command('evalsha', ['0', ...(keys === null ? flat : [keys, ...flat])]);
  }
  return command.getKeys().length === 0 ? -1 : command.getSlot();
}

const SLOT_EXEC = Symbol('slotExec');
type SlotExec = (wait?: ReplicaWait) => Promise<[Error | null, unknown][]>;
type Reply = [Error | null, unknown];

/** The cluster is reconfiguring: worth a moment's wait before the next attempt. */
const notRunYet = (err: Error | null): boolean =>
  err !== null && /^(TRYAGAIN|CLUSTERDOWN) /.test(err.message);

/**
 * Replies that say the command did not run on that node (its slot moved, is moving, or the cluster is
 * reconfiguring): safe to send again. ioredis retries a pipeline itself only when every error is the
 * same and every other command is read-only, which a pipeline over many slots after a failover is not.
 */
const notRunThere = (err: Error | null): boolean =>
  err !== null && (/^(MOVED|ASK) /.test(err.message) || notRunYet(err));
const REDIRECT_ATTEMPTS = 5;

const refreshSlots = (cluster: Cluster): Promise<void> =>
  new Promise((resolve) => cluster.refreshSlotsCache(() => resolve()));

/** A recording stand-in for a pipeline of a Cluster; see the file comment. */
function slotPipeline(cluster: Cluster): ChainableCommander {
  const queued: Queued[] = [];

  /** Sends the commands at `indices`, one real pipeline per node group, into `out`. */
  async function sendGroups(indices: number[], out: Reply[], wait?: ReplicaWait): Promise<void> {
    const groups = new Map<string, number[]>();
    for (const n of indices) {
      const slot = slotOf(queued[n]!);
      // Group by the nodes that serve the slot, like ioredis does; keyless commands go with the first group.
      const group = slot < 0 ? '' : (cluster.slots[slot] ?? []).join(',');
      const members = groups.get(group) ?? [];
      members.push(n);
      groups.set(group, members);
    }
    const keyless = groups.get('');
    groups.delete('');
    if (keyless) {
      const first = groups.values().next();
      if (first.done) groups.set('', keyless);
      else first.value.push(...keyless);
    }
    await Promise.all(
      [...groups.values()].map(async (members) => {
        const pipeline = cluster.pipeline() as unknown as Record<string, (...a: unknown[]) => unknown>;
        for (const n of members) pipeline[queued[n]!.name]!(...queued[n]!.args);
        // WAIT on the connection that made this group's writes (each master answers for its own).
        if (wait) pipeline.wait!(wait.replicas, wait.timeoutMs);
        const replies = (await (pipeline as unknown as ChainableCommander).exec()) ?? [];
        if (wait) takeAcks(replies, wait);
        members.forEach((n, m) => (out[n] = replies[m] ?? [new Error('pipeline aborted'), null]));
      }),
    );
  }

  const exec: SlotExec = async (wait) => {
    if (cluster.status !== 'ready') await cluster.ping(); // the slot map is known once ready
    const out: Reply[] = new Array<Reply>(queued.length);
    let pending = queued.map((_, n) => n);
    for (let attempt = 1; ; attempt++) {
      await sendGroups(pending, out, wait);
      // Commands a node refused to run (their slot is elsewhere now) go again, with a fresh slot map.
      pending = pending.filter((n) => notRunThere(out[n]![0]));
      if (pending.length === 0 || attempt === REDIRECT_ATTEMPTS) return out;
      await refreshSlots(cluster);
      if (pending.some((n) => notRunYet(out[n]![0]))) await sleep(100 * attempt);
    }
  };
  const proxy: ChainableCommander = new Proxy({} as ChainableCommander, {
    get(_target, property) {
      if (property === 'exec') return () => exec();
      if (property === SLOT_EXEC) return exec;
      if (property === 'length') return queued.length;
      if (typeof property !== 'string' || property === 'then') return undefined;
      return (...args: unknown[]) => {
        queued.push({ name: property, args });
        return proxy;
      };
    },
  });
  return proxy;
}
