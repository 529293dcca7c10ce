--[[
  Applies the pre-aggregated increments of one API from one Kafka batch, exactly once
  (docs/design.md "Write path: exactly once"). Variable number of keys; every key is in the
  hash slot {api}. Built by libs/store/src/scripts/apply-scripts.ts (applyApiBatchArgs).

  KEYS[1]  <p>:g<g>:{api}:off         hash  "<topic>/<partition>" -> last applied offset
  KEYS[2]  <p>:g<g>:{api}:cmp         string last compacted hour
  KEYS[3..5]  dict:k, dict:i, dict:s  lists (only their lengths are read)
  KEYS[6..8]  idx:h, idx:d, idx:m     zsets of bucket indices holding data
  KEYS[9..11] dict:k:ix, dict:i:ix, dict:s:ix  hashes (only their expiry is set)
  KEYS[12] dirty                      zset  buckets with a delta to seal (docs/store-v2.md): member
                                             "<r>:<t>", score = the bucket's last hour
  KEYS[13] stage                      list  chunks of increments waiting (applyStagedChunk-5.lua)
  KEYS[14] <p>:{api}:alerts:rules:v   string version of the API's alert rules
  KEYS[15] <p>:{api}:alerts:crossings stream crossings (crossing-codec.ts)
  KEYS[16] <p>:{api}:alerts:lv:<v>    hash  the level table of rules version ARGV[11] (alert-detection.ts)
  KEYS[17] <p>:g<g>:{api}:bz          hash  billing zones' since: zone n -> unix ms (docs/design.md "Billing zones")
  KEYS[18] <p>:g<g>:{api}:carry       hash  what a rebuild's --since carried into this generation (read only)
  then per bucket, in ARGV order: its parts set (none for a minute bucket), then one key per cube, then one per
  section part;
  then per alert counter (docs/alerts.md "Detection"): its hash <p>:g<g>:{api}:alerts:n:<c>:<ps> and the
  set of its period's recorded crossings <p>:{api}:alerts:x:<period>:<ps>

  ARGV[1]  offset field "<topic>/<partition>"
  ARGV[2]  expected off (-1 = none yet)          CAS: nobody else applied this partition since
  ARGV[3]  new off (the batch's last offset)
  ARGV[4]  expected cmp (-1 = none)              CAS: the hour/rollup split still holds
  ARGV[5..7]  required lengths of dict k, i, s   codes used < length: no dangling code
  ARGV[8]  number of buckets B
  ARGV[9]  keep-until (unix ms; 0 = none): the per-API keys (off, cmp, dictionaries, their
           indexes) expire no earlier than this; later batches only move it forward
  ARGV[10] number of staged chunks S, then S chunks (applyStagedChunk-5.lua's layout), appended
           to the stage in this call: the batch's hour buckets (fields and section parts) and alert
           counters' increments when they exceed the per-call bound (docs/store-v2.md "Applies staged in chunks"); the offset
           moves with them, and the writer then applies them one chunk per call
  ARGV[11] expected version of the alert rules (-1 = not checked: no alert counters)
  ARGV[12] number of alert counters A written by this call (the others of the batch are in the staged chunks)
  ARGV[13] the batch's clock (unix ms): detectedAt of the crossings
  ARGV[14] '1' when the batch has alert counters, in this call or staged: the level table KEYS[16] must exist
  ARGV[15] the billing zones 1..Z every event of this call was counted in (-1: no event counted)
  then the S staged chunks (from ARGV[16])
  then per bucket: r ('h'|'d'|'m'; 'n': a minute bucket, plain hashes that only expire: no parts set, no
    index or dirty entry, and its one "part" is its f fields packed into one field of its f hash (suffix
    "f", includes/bucketWrites.lua writePart); 'z<n>d'|'z<n>m': a billing zone's edge, t its minute index, a
    parts set and a dirty entry but no index), t, expireAt (unix ms; 0 = none: an hour not compacted
    yet keeps its keys until the compactor merges it and sets their expiry), number of cubes C,
    then per cube: suffix, number of fields F, then F pairs field, increment;
    then number of section parts L, then per part: its list's suffix ("L:<cube>", "L:f:<shard>"), the encoded
    section, appended whole (RPUSH) to the list (docs/store-v2.md "History written as section parts")
  then per alert counter: counterId, period ('day'|'month'), periodStart, expireAt (unix ms), number of
    levels V, then the V levels ascending; then number of members M, then M pairs member, increment
    (includes/alertCounters.lua)

  Returns  {'ok'}                      applied, off[field] = ARGV[3]
           {'retired', g'}             a rebuild retired this API in this generation (retireApiGeneration-1.lua):
                                       nothing written; the writer resumes in g' once <p>:gen moves
           {'off', actual}             off CAS failed (actual, -1 = none): nothing written
           {'cmp', actual}             cmp CAS failed: nothing written
           {'dict', name, length}      a dictionary is shorter than required: nothing written
           {'rules', version}          the alert rules are not those of ARGV[11] (version now; 0 = none yet),
                                       or their level table is gone: nothing written; the writer reads them
                                       again and writes the table
]]
--- @include "includes/bucketWrites"
--- @include "includes/alertCounters"
-- One read of off for both: the retirement mark and this partition's offset.
local offField = ARGV[1]
local offs = redis.call('HMGET', KEYS[1], '@retired', offField)
if offs[1] then
  return { 'retired', offs[1] }
end
local actualOff = offs[2] or '-1'
if actualOff ~= ARGV[2] then
  return { 'off', actualOff }
end
local actualCmp = redis.call('GET', KEYS[2]) or '-1'
if actualCmp ~= ARGV[4] then
  return { 'cmp', actualCmp }
end
local names = { 'k', 'i', 's' }
for d = 1, 3 do
  local required = tonumber(ARGV[4 + d])
  if required > 0 then
    local length = redis.call('LLEN', KEYS[2 + d])
    if length < required then
      return { 'dict', names[d], length }
    end
  end
end
if ARGV[11] ~= '-1' then
  local version = redis.call('GET', KEYS[14]) or '0'
  if version ~= ARGV[11] or (ARGV[14] == '1' and redis.call('EXISTS', KEYS[16]) == 0) then
    return { 'rules', version }
  end
end

local staged = tonumber(ARGV[10])
for i = 1, staged, 64 do
  redis.call('RPUSH', KEYS[13], unpack(ARGV, 15 + i, 15 + math.min(i + 63, staged)))
end

local index = { h = KEYS[6], d = KEYS[7], m = KEYS[8] }
local k = 18
local a = 16 + staged
local buckets = tonumber(ARGV[8])
for _ = 1, buckets do
  local r, t, expireAt, cubes = ARGV[a], ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3])
  a = a + 4
  local parts = nil
  if r ~= 'n' then
    k = k + 1
    parts = KEYS[k]
    markBucket(index[r], KEYS[12], r, t)
  end
  local suffixes = {}
  -- SADD in slices: unpack() of a huge table would overflow Lua's C stack.
  local function listed(suffix)
    if not parts then
      return
    end
    suffixes[#suffixes + 1] = suffix
    if #suffixes == 256 then
      redis.call('SADD', parts, unpack(suffixes))
      suffixes = {}
    end
  end
  for _ = 1, cubes do
    local suffix, fields = ARGV[a], tonumber(ARGV[a + 1])
    a = a + 2
    k = k + 1
    a = addFields(KEYS[k], ARGV, a, fields, expireAt)
    listed(suffix)
  end
  local sections = tonumber(ARGV[a])
  a = a + 1
  for _ = 1, sections do
    k = k + 1
    writePart(r, KEYS[k], ARGV[a + 1], expireAt)
    listed(ARGV[a])
    a = a + 2
  end
  if #suffixes > 0 then
    redis.call('SADD', parts, unpack(suffixes))
  end
  if parts and expireAt ~= '0' then
    redis.call('PEXPIREAT', parts, expireAt)
  end
end
-- The counters' keys follow the buckets' in KEYS, two per counter.
local function alertKeysOf()
  k = k + 2
  return KEYS[k - 1], KEYS[k]
end
addAlertCounters(ARGV, a, tonumber(ARGV[12]), alertKeysOf, function(p) return ARGV[p] end, KEYS[15], KEYS[16],
  ARGV[13])
-- Billing zones' since (docs/design.md "Billing zones"), with the counts: zones 1..Z of this call are counted in
-- their edges. A zone new to the generation is complete from 0 when nothing of the API was applied or carried
-- before (this is its first batch), else from the server's clock plus the 5 minutes an event may lie ahead of
-- Kafka's (and a minute for clocks). A zone the generation has and this call did not count (a writer whose zone
-- list predates the declaration) is complete only after this call's events: its since moves past them.
local zones = tonumber(ARGV[15])
if zones >= 0 then
  local known = redis.call('HLEN', KEYS[17])
  if zones ~= known then
    local time = redis.call('TIME')
    local later = tonumber(time[1]) * 1000 + 360000
    for n = zones + 1, known do
      if tonumber(redis.call('HGET', KEYS[17], n) or '0') < later then
        redis.call('HSET', KEYS[17], n, later)
      end
    end
    if zones > known then
      local first = redis.call('EXISTS', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[18]) == 0
      for n = known + 1, zones do
        redis.call('HSET', KEYS[17], n, first and 0 or later)
      end
    end
  end
end
redis.call('HSET', KEYS[1], offField, ARGV[3])

-- Bounded growth (docs/redis-layout.md "Expiry"): the API's own keys go once no bucket written
-- so far can exist any more. PEXPIRETIME: -1 = no expiry yet, -2 = no such key. cmp is not looked
-- at when the GET above found none (this script never creates it).
local keepUntil = tonumber(ARGV[9])
if keepUntil > 0 then
  for n, key in ipairs({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[9], KEYS[10], KEYS[11], KEYS[12], KEYS[13],
    KEYS[17] }) do
    if n ~= 2 or actualCmp ~= '-1' then
      local current = redis.call('PEXPIRETIME', key)
      if current == -1 or (current >= 0 and current < keepUntil) then
        redis.call('PEXPIREAT', key, ARGV[9])
      end
    end
  end
end
return { 'ok' }
