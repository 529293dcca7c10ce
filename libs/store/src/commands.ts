/**
 * Loads every Lua script in ./commands into an ioredis client with defineCommand,
 * the way BullMQ keeps src/commands/*.lua. A file is named `<name>-<numberOfKeys>.lua`
 * (fixed key count) or `<name>.lua` (variable key count: the caller passes numkeys first).
 * Each script starts with a header comment documenting KEYS, ARGV and the result.
 * Code several scripts share lives in ./commands/includes and is spliced in where a script
 * says `--- @include "includes/<name>"` (BullMQ's notation; each file at most once per script).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RedisClient } from './connection';

const commandsDir = join(dirname(fileURLToPath(import.meta.url)), 'commands');

interface ScriptFile {
  name: string;
  numberOfKeys: number | undefined;
  lua: string;
}

let cache: ScriptFile[] | undefined;

const INCLUDE = /^--- @include "([A-Za-z0-9_/-]+)"$/gm;

/** A script's source with every `--- @include "<path>"` line replaced by <commands>/<path>.lua. */
export function withIncludes(lua: string, seen = new Set<string>()): string {
  return lua.replace(INCLUDE, (_line, path: string) => {
    if (seen.has(path)) return `-- (${path} included above)`;
    seen.add(path);
    return withIncludes(readFileSync(join(commandsDir, `${path}.lua`), 'utf8'), seen);
  });
}

function scripts(): ScriptFile[] {
  cache ??= readdirSync(commandsDir)
    .filter((f) => f.endsWith('.lua'))
    .map((file) => {
      const match = /^([A-Za-z]+)(?:-(\d+))?\.lua$/.exec(file);
      if (!match) throw new Error(`unexpected Lua script name ${file}`);
      return {
        name: match[1]!,
        numberOfKeys: match[2] === undefined ? undefined : Number(match[2]),
        lua: withIncludes(readFileSync(join(commandsDir, file), 'utf8')),
      };
    });
  return cache;
}

/**
 * Each script's SHA1 (what EVALSHA, the slow log and SCRIPT EXISTS name it by) and its name, e.g.
 * "0a3ddfad…" -> "applyApiBatch": for reading Redis's slow log.
 */
export function scriptNamesBySha(): Map<string, string> {
  return new Map(scripts().map((s) => [createHash('sha1').update(s.lua).digest('hex'), s.name]));
}

const loaded = new WeakSet<RedisClient>();

/**
 * Number of KEYS of the project's Lua command `name`: a number (fixed), null (variable: the first argument
 * says how many), undefined (not one of ours). Used to find a script call's hash slot (pipeline.ts).
 */
export function scriptKeyCount(name: string): number | null | undefined {
  const script = scripts().find((s) => s.name === name);
  return script === undefined ? undefined : (script.numberOfKeys ?? null);
}

/** Idempotent: defines each script once per client (EVALSHA with automatic fallback to EVAL). */
export function defineCommands(redis: RedisClient): void {
  if (loaded.has(redis)) return;
  for (const s of scripts()) {
    redis.defineCommand(
      s.name,
      s.numberOfKeys === undefined ? { lua: s.lua } : { lua: s.lua, numberOfKeys: s.numberOfKeys },
    );
  }
  loaded.add(redis);
}

/** Typed access to a defined command (ioredis adds them dynamically). */
export function command<Result>(redis: RedisClient, name: string) {
  defineCommands(redis);
  const fn = (redis as unknown as Record<string, (...args: (string | number | Buffer)[]) => Promise<Result>>)[
    name
  ];
  if (typeof fn !== 'function') throw new Error(`no Lua command ${name}`);
  return (...args: (string | number | Buffer)[]) => fn.apply(redis, args);
}
