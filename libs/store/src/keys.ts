/**
 * The Redis key layout: the only module that builds key names. docs/redis-layout.md
 * explains it with examples; keep the two in step.
 *
 * Global keys (never generation-scoped):
 *   <p>:gen                     string  current counter generation (absent = 1)
 *   <p>:api:<apiId>             string  workspaceId that owns the API (first event or operator registration)
 *   <p>:apitz:<apiId>           string  the API's default time zone (IANA name, checked by libs/core; absent = UTC): the
 *                                       calendar of its queries without timeZone and of its new alert rules
 *                                       (registry.ts; `api register|update --time-zone`)
 *   <p>:apibz:<apiId>           list    the API's billing zones (IANA names; billing-zones.ts, `api register|update
 *                                       --billing-zone`): append-only, at most 3, zone number n = position + 1
 *                                       (its edge buckets z<n>d, z<n>m below)
 *   <p>:apis                    set     every known apiId (the compactor's scheduler walks it)
 *   <p>:wsapis:<workspaceId>    set     the apiIds a workspace owns (GET /v1/apis.list), written with <p>:api:<id>
 *   <p>:wsapis-indexed          string  present once every API of <p>:apis is in its workspace's set; a store
 *                                       from before the sets has none, and the first listing fills them
 *                                       (workspace-apis.ts)
 *   <p>:rootkey:<sha256>        hash    workspaceId, permissions (JSON array), createdAt, revokedAt
 *   <p>:rtdeny:<jti>            string  a revoked read token (deny-list); expires with the token (PEXPIREAT)
 *   <p>:{bull}:<queue>:...      BullMQ's own keys (the compactor's queue "compaction"); the hash tag {bull}
 *                                       keeps all of them in one slot, as BullMQ's scripts need on a cluster
 *   <p>:rebuild                 hash    state of the running (or last) rebuild into a new generation
 *                                       (generation-state.ts: source, target, status, since, ...)
 *   <p>:rl:{<sha256>}           string  requests of a root key in the current rate window (admitQuery.lua),
 *                                       expires with the window; in the slot of the root key's query slots
 *   <p>:rl:{<sha256>}:s:<sub>   string  the same, of one read-token subject of the root key (<sub> = sha256
 *                                       of the tokens' externalId)
 *   <p>:slots:{<sha256>}        zset    query requests of a root key in progress: member = request id,
 *                                       score = unix ms when the slot expires (admitQuery.lua); the hash
 *                                       tag keeps it in one slot with its subjects' sets and rate windows
 *   <p>:slots:{<sha256>}:s:<sub> zset   the same, of the root key's read tokens of one subject (a subset)
 *   <p>:backfill:<sha256>       string  progress of `backfill --file` for the file whose first non-blank line
 *                                       has this hash (JSON, tools/cli/src/backfill/resume.ts); no expiry: it
 *                                       is what keeps a second run of the same file from counting it twice
 *   <p>:backfill:path:<sha256>  string  key of the progress record last used from the file path with this hash
 *                                       (a path whose backfill is unfinished refuses other content)
 *
 * Pub/sub channels (not keys: nothing is stored; plain PUBLISH, which a Redis Cluster broadcasts to every node):
 *   <p>:changes                 the ingest worker's change signal after each committed batch: which APIs
 *                                       changed (change-signal.ts); the query service's live streams listen
 *
 * Counter keys of generation g and API a, all in hash slot {a} so that one Lua script
 * may touch every key of one API atomically, also on Redis Cluster:
 *   <p>:g<g>:{a}:dict:<d>       list    dictionary d ∈ k (keyId), i (identity "id\nexternalId"), s (tag set
 *                                       "t1,t2" sorted, "" = no tags, then U+001F and the region when
 *                                       there is one: dictionary-values.ts): value at position n has code n
 *   <p>:g<g>:{a}:dict:<d>:ix    hash    value -> code
 *   <p>:g<g>:{a}:off            hash    "<topic>/<partition>" -> last Kafka offset whose messages of this API are applied
 *   <p>:g<g>:{a}:cmp            string  last hour index compacted into the day and month rollups
 *   <p>:g<g>:{a}:carry          hash    rebuild only: "<topic>/<partition>" -> off of the old generation
 *                                       when its buckets before the --since boundary were copied ("@" marks done)
 *   <p>:g<g>:{a}:idx:<r>        zset    bucket indices that hold data, per resolution r
 *   <p>:g<g>:{a}:<r>:<t>:parts  set     cube suffixes written in bucket (r, t)
 *   <p>:g<g>:{a}:<r>:<t>:<cube> hash    counters not sealed yet (the "delta"); see CUBES below
 *   <p>:g<g>:{a}:<r>:<t>:L:<c>  list    delta written as section parts (cube c ∈ t k i s f): each element an
 *                                       encoded section (section/codec.ts, version 0) of some of the bucket's
 *                                       counts, written whole by ingest (history) and compaction; listed in
 *                                       parts as "L:<c>", sealed and renamed (z:L:<c>) like a delta hash
 *   <p>:g<g>:{a}:<r>:<t>:S:<c>  string  sealed section of cube c ∈ t k i s x f (section/codec.ts)
 *   <p>:g<g>:{a}:n:<t>:<c>      hash    minute t (floor(ms / 60000)) of cube c ∈ t f, one hash per cube
 *                                       (groupBy=minute, docs/design.md "The next store changes"): the fields
 *                                       of CUBES below, f's with the identity in front (field-codec.ts
 *                                       minuteFField; a batch's many fields packed into one "#<n>",
 *                                       minute-increments.ts); HINCRBYs (and that HSET) of applyApiBatch for
 *                                       the minutes within the minute retention, PEXPIREAT minute end + minute
 *                                       retention; no parts set, no index or dirty entry: never sealed,
 *                                       compacted or copied
 *   <p>:g<g>:{a}:<r>:<t>:z:<cube> hash  delta hashes being sealed (renamed from <cube> by beginSeal)
 *   <p>:g<g>:{a}:<r>:<t>:zparts set     cube suffixes being sealed (renamed from parts)
 *   <p>:g<g>:{a}:<r>:<t>:zid    string  id of the seal in progress (the version taken when zparts was made);
 *                                       a commit must name it, so a sealer that read an earlier seal loses
 *   <p>:g<g>:{a}:z<n><f>:<t>:... the edge buckets of billing zone n (libs/core zone-edges.ts; f = d: a local day's
 *                                       midnight, m: a local month's; t = minute of the midnight): the same
 *                                       parts set, cubes (t k i s f), L:, S: (and x) and seal keys as a day
 *                                       bucket; no idx entry (none exists for them), in dirty; never
 *                                       compacted or copied; PEXPIREAT end of t's UTC day + day/month retention
 *   <p>:g<g>:{a}:bz             hash    zone number n -> unix ms from which every event of billing zone n is
 *                                       counted in its edges in this generation: set by applyApiBatch with the
 *                                       counts (0 from the API's first batch; docs/design.md "Billing zones");
 *                                       expires with the API's other keys
 *   <p>:g<g>:{a}:dirty          zset    buckets with delta hashes: member "<r>:<t>", score = the
 *                                       bucket's last hour (sealable once it is <= cmp, for hours)
 *   <p>:g<g>:{a}:seq            string  seal sequence: INCR gives each new section its version
 *   <p>:g<g>:{a}:hold           string  compaction of the API waits while it exists (set for a fraction
 *                                       of a second by a reader that the moving compaction point starved)
 *   <p>:g<g>:{a}:stage          list    chunks of hash increments that applyApiBatch staged (its offset already
 *                                       moved) and applyStagedChunk applies, one per call (docs/store-v2.md
 *                                       "Applies staged in chunks"); empty but for a few ms, or after a crash
 *   <p>:g<g>:{a}:alerts:n:<c>:<ps>  hash  an alert counter (docs/alerts.md "Detection"): scope member -> count of
 *                                       the events that the rules of counter c (libs/core alertCounterId) count,
 *                                       in the period starting at <ps> (unix ms); written by applyApiBatch, expires
 *                                       with the period's day or month rollup. Generation-scoped: a
 *                                       rebuild counts again from zero
 *
 * Alert keys of API a (docs/alerts.md): in hash slot {a}, beside its counters (so the apply script can read
 * the rules' version and append crossings atomically with the counts), but not generation-scoped: rules,
 * crossings and deliveries outlive a rebuild (a rebuild finds the same alert ids, which delivery knows):
 *   <p>:{a}:alerts:rules        hash    ruleId -> the rule as JSON (alert-rules.ts)
 *   <p>:{a}:alerts:rules:v      string  version of the API's rules: INCR on every create and delete, so that a
 *                                       writer caching the rules notices a change
 *   <p>:{a}:alerts:crossings    stream  crossings detected (crossing-codec.ts: one entry per crossing); read by
 *                                       the delivery worker's consumer group "delivery"
 *   <p>:{a}:alerts:lv:<v>       hash    the level table of rules version v: "<counterId>:<level>" -> the ids of the
 *                                       rules with that level, space-separated (alert-detection.ts); written by
 *                                       the ingest worker when it reads the rules, read by applyApiBatch on a
 *                                       crossing; expires a day after it was written
 *   <p>:{a}:alerts:x:<period>:<ps>  set  crossings already appended to the stream, of the period (day|month)
 *                                       starting at <ps>: "ruleId|level|member"; applyApiBatch appends a crossing
 *                                       only when it joins this set, so a replay or a rebuild appends none twice;
 *                                       expires with the period's counters
 *   <p>:{a}:alerts:deliveries   stream  the delivery log of the API: one entry per attempt (capped)
 * Global alert keys:
 *   <p>:alerts:apis             set     apiIds that have (or had) a rule: the APIs whose crossings delivery reads
 *   <p>:alerts:endpoints:<ws>   hash    endpointId -> webhook endpoint of workspace ws as JSON (url, secret,
 *                                       ruleIds); the secret is never answered after creation
 *
 * Progress of a partition (generation-scoped, its own slot):
 *   <p>:g<g>:wm                 hash    "<topic>/<partition>" -> offset through which every message is applied
 *
 * Nothing a client sends reaches a key name except apiId, which is validated as an
 * identifier (no braces, no whitespace) before it gets here. Every other string is
 * dictionary-encoded into a base-36 code.
 */
import type { BucketResolution, Cube, EdgeResolution, Resolution } from '@va/core';

/**
 * Resolutions and cubes are libs/core's (the planner and chooseCube decide them); the store's modules
 * and callers name them through here, beside the key builders that take them. BucketResolution adds the
 * minute buckets ('n'), which only the counter hashes (`cube`, `bucketPrefix`) have.
 */
export type { BucketResolution, Cube, EdgeResolution, Resolution };

/** The buckets that have sections, parts sets and seals: hours, days, months and billing zones' edges. */
export type SealedResolution = Resolution | EdgeResolution;

export const RESOLUTIONS: readonly Resolution[] = ['h', 'd', 'm'];

/** Dictionaries of an API: keys, identities, tag sets. */
export type DictName = 'k' | 'i' | 's';

/**
 * Cubes (Cube): which dimensions a counter hash is keyed by. o = outcome code 0..8 (OUTCOMES order);
 * dimension codes are base-36 dictionary codes; field-codec.ts spells and reads the fields.
 *   t  totals                 field "<o>"                       one hash
 *   k  by key                 field "<key>:<o>"                 part = key code >> 5 (base 36)
 *   i  by identity            field "<identity>:<o>"            part = identity code >> 5
 *   s  by tag set             field "<set>:<o>"                 part = set code >> 5
 *   f  full combination       field "<key>.<set>:<o>"           part = identity code, or "_" without identity
 * Parts keep each hash small (≤ 32 members × 9 outcomes) so that Redis keeps it in its
 * compact listpack encoding (hash-max-listpack-entries 512 in infra/redis.conf).
 */
export const SHARD_BITS = 5;
export const NO_IDENTITY_PART = '_';

export interface KeySpace {
  prefix: string;
  generation: number;
}

export const globalKeys = (prefix: string) => ({
  generation: `${prefix}:gen`,
  api: (apiId: string) => `${prefix}:api:${apiId}`,
  apiTimeZone: (apiId: string) => `${prefix}:apitz:${apiId}`,
  /** The API's billing zones: a list of IANA names, append-only, zone n at position n - 1 (billing-zones.ts). */
  apiBillingZones: (apiId: string) => `${prefix}:apibz:${apiId}`,
  apis: `${prefix}:apis`,
  workspaceApis: (workspaceId: string) => `${prefix}:wsapis:${workspaceId}`,
  workspaceApisIndexed: `${prefix}:wsapis-indexed`,
  rootKey: (hash: string) => `${prefix}:rootkey:${hash}`,
  /** jti is base64url (checked by @va/read-tokens before it gets here). */
  readTokenDenied: (jti: string) => `${prefix}:rtdeny:${jti}`,
  /**
   * BullMQ `prefix` option: BullMQ builds `<this>:<queue>:<...>` itself. A hash tag, as BullMQ's docs ask
   * for Redis Cluster ("Redis Cluster" pattern): its scripts touch many keys of a queue at once.
   */
  bull: `${prefix}:{bull}`,
  rebuild: `${prefix}:rebuild`,
  /** The rate window of a root key, or of one of its read-token subjects: one hash slot with querySlots (admitQuery.lua). */
  rateWindow: (hash: string, subject?: string) =>
    subject === undefined ? `${prefix}:rl:{${hash}}` : `${prefix}:rl:{${hash}}:s:${subject}`,
  querySlots: (hash: string) => `${prefix}:slots:{${hash}}`,
  /** The slots of one read-token subject of a root key: same hash slot as querySlots (one script takes both). */
  querySubjectSlots: (hash: string, subject: string) => `${prefix}:slots:{${hash}}:s:${subject}`,
  backfill: (sha256: string) => `${prefix}:backfill:${sha256}`,
  backfillPath: (pathSha256: string) => `${prefix}:backfill:path:${pathSha256}`,
  /** Pub/sub channel of the change signal (change-signal.ts): not a key, nothing is stored under it. */
  changesChannel: `${prefix}:changes`,
});

/** Alert keys of one API (all in its slot {apiId}, not generation-scoped; header above). */
export function alertKeys(prefix: string, apiId: string) {
  const base = alertBase(prefix, apiId);
  return {
    /** For scripts that find an API's alert keys themselves (applyStagedChunk-5.lua): the others are this + ':…'. */
    base,
    rules: `${base}:rules`,
    rulesVersion: alertOfBase.rulesVersion(base),
    crossings: alertOfBase.crossings(base),
    deliveries: `${base}:deliveries`,
    /** The level table of one version of the rules (alert-detection.ts). */
    levels: (version: number) => alertOfBase.levels(base, version),
    /** The crossings already appended of one period (applyApiBatch: SADD before XADD). */
    recorded: (period: 'day' | 'month', periodStart: number) =>
      alertOfBase.recorded(base, period, periodStart),
  };
}

/** alertKeys(prefix, apiId).base. */
export const alertBase = (prefix: string, apiId: string): string => `${prefix}:{${apiId}}:alerts`;

/**
 * Some of alertKeys' names from its base (alertBase), without building its object: for the ingest's hot path
 * (see ofBase below). alertKeys spells them through these.
 */
export const alertOfBase = {
  rulesVersion: (base: string): string => `${base}:rules:v`,
  crossings: (base: string): string => `${base}:crossings`,
  levels: (base: string, version: number): string => `${base}:lv:${version}`,
  recorded: (base: string, period: 'day' | 'month', periodStart: number): string =>
    `${base}:x:${period}:${periodStart}`,
};

/** Global alert keys (header above). */
export const alertGlobalKeys = (prefix: string) => ({
  apis: `${prefix}:alerts:apis`,
  endpoints: (workspaceId: string) => `${prefix}:alerts:endpoints:${workspaceId}`,
});

/**
 * Codes below this are spelled once per process (code36): the worker spells the same small codes for every
 * tuple of every batch, and toString(36) makes a new string each time (no cache for radix 36, unlike base 10).
 */
const SPELLED_CODES = 1 << 16;
const spelled = new Array<string | undefined>(SPELLED_CODES).fill(undefined);

/** A dictionary code as field and key text: base 36. */
export const code36 = (code: number): string =>
  code >= 0 && code < SPELLED_CODES ? (spelled[code] ??= code.toString(36)) : code.toString(36);
export const shardOf = (code: number): string => (code >> SHARD_BITS).toString(36);

/** Keys of one API in one generation. */
export function apiKeys(space: KeySpace, apiId: string) {
  const base = apiBase(space, apiId);
  return {
    base,
    dict: (d: DictName) => ofBase.dict(base, d),
    dictIndex: (d: DictName) => ofBase.dictIndex(base, d),
    offsets: ofBase.offsets(base),
    compactedThrough: ofBase.compactedThrough(base),
    carry: `${base}:carry`,
    bucketIndex: (r: Resolution) => `${base}:idx:${r}`,
    /** The hour, day and month indexes, in the order every script that takes all three lists them. */
    bucketIndexes: ofBase.bucketIndexes(base),
    bucketPrefix: (r: BucketResolution, t: number) => ofBase.bucketPrefix(base, r, t),
    /**
     * For Lua scripts that find their buckets themselves (compactNextHour): bucketPrefix(r, t)
     * is bucketRoot .. r .. ':' .. t, its parts set that .. ':parts', a cube that .. ':' .. suffix.
     */
    bucketRoot: ofBase.bucketRoot(base),
    parts: (r: SealedResolution, t: number) => ofBucket.parts(ofBase.bucketPrefix(base, r, t)),
    /** suffix is a cube suffix as stored in the parts set: "t", "k:<part>", "f:<part>", ... */
    cube: (r: BucketResolution, t: number, suffix: string) =>
      ofBucket.cube(ofBase.bucketPrefix(base, r, t), suffix),
    /** Sealed section of a section cube (docs/store-v2.md). */
    section: (r: SealedResolution, t: number, cube: string) => `${base}:${r}:${t}:S:${cube}`,
    /** A delta hash while it is being sealed (suffix as in parts). */
    sealing: (r: SealedResolution, t: number, suffix: string) => `${base}:${r}:${t}:z:${suffix}`,
    sealingParts: (r: SealedResolution, t: number) => `${base}:${r}:${t}:zparts`,
    /** The id of the seal in progress of a bucket (beginSeal-5.lua sets it, commitSeal-4.lua checks it). */
    sealId: (r: SealedResolution, t: number) => `${base}:${r}:${t}:zid`,
    dirty: ofBase.dirty(base),
    /** Billing zones' since (billing-zones.ts billingZoneSince). */
    billingZoneSince: ofBase.billingZoneSince(base),
    sealSequence: `${base}:seq`,
    compactionHold: `${base}:hold`,
    /** Chunks of increments staged by applyApiBatch, applied by applyStagedChunk (docs/store-v2.md). */
    stage: ofBase.stage(base),
    /** An alert counter of the rules with counter id `counterId`, in the period starting at `periodStart`. */
    alertCounter: (counterId: string, periodStart: number) =>
      ofBase.alertCounter(base, counterId, periodStart),
  };
}

/** apiKeys(space, apiId).base: what every key of an API in one generation starts with. */
export const apiBase = (space: KeySpace, apiId: string): string =>
  `${space.prefix}:g${space.generation}:{${apiId}}`;

/**
 * apiKeys' names from its base (apiBase), without building its object of ~20 builders: for the ingest's hot
 * path, one applyApiBatch call per API and batch, thousands per batch on the long tail (#41), where that
 * object per call showed in the worker's profile. apiKeys spells these names through them.
 */
export const ofBase = {
  dict: (base: string, d: DictName): string => `${base}:dict:${d}`,
  dictIndex: (base: string, d: DictName): string => `${base}:dict:${d}:ix`,
  offsets: (base: string): string => `${base}:off`,
  compactedThrough: (base: string): string => `${base}:cmp`,
  bucketIndexes: (base: string) => [`${base}:idx:h`, `${base}:idx:d`, `${base}:idx:m`] as const,
  bucketPrefix: (base: string, r: BucketResolution, t: number): string => `${base}:${r}:${t}`,
  dirty: (base: string): string => `${base}:dirty`,
  billingZoneSince: (base: string): string => `${base}:bz`,
  stage: (base: string): string => `${base}:stage`,
  bucketRoot: (base: string): string => `${base}:`,
  alertCounter: (base: string, counterId: string, periodStart: number): string =>
    `${base}:alerts:n:${counterId}:${periodStart}`,
};

/** A bucket's keys from its prefix (ofBase.bucketPrefix): its parts set, and its cube of a suffix (see apiKeys). */
export const ofBucket = {
  parts: (prefix: string): string => `${prefix}:parts`,
  cube: (prefix: string, suffix: string): string => `${prefix}:${suffix}`,
};

/**
 * The suffix of a bucket's list of section parts of a cube ("L:f"), as listed in its parts set; with a shard, the
 * list of an open hour's f parts of the identities of one identity shard ("L:f:<shardOf(identity)>", "L:f:_" for
 * none: docs/store-v2.md "An open hour's f as parts per identity shard"). No hash suffix starts with "L" (hash
 * suffixes start with their cube letter).
 */
export const partsListSuffix = (cube: Cube, shard?: string): string =>
  shard === undefined ? `L:${cube}` : `L:${cube}:${shard}`;

/** The cube of a parts list suffix ("L:f" or "L:f:<shard>" -> "f"), undefined for a hash suffix. */
export function cubeOfPartsList(suffix: string): Cube | undefined {
  return suffix.startsWith('L:') ? (suffix.charAt(2) as Cube) : undefined;
}

/** Cube suffix ("k:0", "f:_", "t") of a cube and the part a dimension code falls in. */
export function cubeSuffix(cube: Cube, part?: string): string {
  return part === undefined ? cube : `${cube}:${part}`;
}

export function watermarkKey(space: KeySpace): string {
  return `${space.prefix}:g${space.generation}:wm`;
}

/** Every key of generation g (counters, dictionaries, progress) starts with this. */
export const generationRoot = (prefix: string, generation: number): string => `${prefix}:g${generation}:`;

export const partitionField = (topic: string, partition: number) => `${topic}/${partition}`;
