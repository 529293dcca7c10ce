--[[
  Compacts the next closed hour of one API into its day and month rollups, atomically
  (docs/rollups.md "How compaction stays exact"). Every key is in the API's hash slot {api};
  bucket keys are derived from ARGV[1] exactly as keys.ts documents for bucketRoot.
  Called in a loop by libs/store/src/compaction.ts until it answers 'done'.

  KEYS[1]  <p>:g<g>:{api}:cmp      string  last hour compacted (absent = none yet)
  KEYS[2]  <p>:g<g>:{api}:idx:h    zset    hour indices holding data
  KEYS[3]  <p>:g<g>:{api}:idx:d    zset    day indices holding data
  KEYS[4]  <p>:g<g>:{api}:idx:m    zset    month indices holding data
  KEYS[5]  <p>:g<g>:{api}:dirty    zset    buckets to seal (docs/store-v2.md): the hour merged here and
                                           the day and month it was merged into are marked
  KEYS[6]  <p>:g<g>:{api}:hold     string  set (with a short expiry) by a reader whose reads the moving
                                           compaction point invalidated twice: while it exists nothing is
                                           compacted, so that the reader's next plan holds (read-answer.ts)
  KEYS[7]  <p>:g<g>:{api}:stage   list    chunks of increments staged by applyApiBatch and not applied yet
                                           (a writer died in between): applied first, since they may hold
                                           counts of the hour compacted here (docs/store-v2.md)

  ARGV[1]  bucket root "<p>:g<g>:{api}:" (keys.ts apiKeys().bucketRoot)
  ARGV[2]  closed bound: last hour index that may be compacted
  ARGV[3]  now (unix ms): a rollup whose expiry (end + retention) is not after now is not written
  ARGV[4]  day retention (ms)
  ARGV[5]  month retention (ms)
  ARGV[6]  hour retention (ms)

  Finds the first hour in idx:h after cmp (absent: the first hour in idx:h) and <= the bound,
  adds every field of every hash listed in its parts and zparts sets (delta and being sealed) to the
  same cube of its day and of its month bucket (HINCRBY), and appends its sealed sections (cubes t,
  k, i, s, f) and every section part of its lists ("L:<cube>", "L:f:<shard>", delta and being
  sealed) to the same lists of the day and month (RPUSH: copied, not decoded; the compactor seals closed hours
  before compacting them, so a busy hour costs a few copies rather than a HINCRBY per field), records the cubes in their parts sets, the buckets in idx:d / idx:m,
  sets PEXPIREAT on every rollup key it wrote and sets cmp to that hour. The day is written only
  with its month while the month is kept (readers rely on it: libs/store/src/rollup-children.ts). Without such an hour
  it sets cmp to the bound (only if greater: cmp never moves back).

  Only now does the hour bucket get its expiry (hour end + hour retention; in the past: Redis
  deletes it at once): ingest writes an hour not compacted yet without one, so that an hour
  whose retention ends before the compactor reaches it is merged all the same, not lost.
  An hour already past its retention is thus deleted, and so is its idx:h entry.

  Why it is exact: ingest writes an hour <= cmp into its hour bucket AND the rollups, an hour
  > cmp into the hour bucket only, in one script guarded by a CAS on cmp. This script merges the
  hour and moves cmp past it in one atomic step, so every increment reaches the rollups once:
  either before the merge (carried by the merge) or after it (written there by ingest).
  Running it twice merges nothing twice: the second run starts after the new cmp. A seal of the
  hour moves its counts between delta, sealing and section atomically (beginSeal, commitSeal), and
  this script reads all three: each count once, whatever step of a seal is in progress.

  Returns  {'hour', h, fields}   hour h compacted (fields = counters and section parts added to each rollup)
           {'done', cmp}         nothing left up to the bound; cmp as it now stands
           {'held'}              a reader holds compaction (KEYS[6]): nothing done; try again shortly
           {'staged'}            chunks are staged (KEYS[7]): nothing done; apply them (applyStagedChunk), then again
]]
--- @include "includes/time"
local root = ARGV[1]
local bound = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local dayRetention = tonumber(ARGV[4])
local monthRetention = tonumber(ARGV[5])
local hourRetention = tonumber(ARGV[6])

-- Integers as Redis expects them: tostring() of a Lua number may give "2.5e+14".
local function int(x)
  return string.format('%.0f', x)
end

-- One EXISTS for both in the common case (neither exists).
if redis.call('EXISTS', KEYS[6], KEYS[7]) > 0 then
  if redis.call('EXISTS', KEYS[6]) == 1 then
    return { 'held' }
  end
  return { 'staged' }
end
local cmpRaw = redis.call('GET', KEYS[1])
local cmp = cmpRaw and tonumber(cmpRaw) or nil
if cmp and cmp >= bound then
  return { 'done', int(cmp) }
end
local after = cmp and ('(' .. int(cmp)) or '-inf'
local found = redis.call('ZRANGEBYSCORE', KEYS[2], after, int(bound), 'LIMIT', 0, 1)
if #found == 0 then
  -- KEEPTTL: cmp expires with the API's other keys (applyApiBatch); a new one gets the expiry
  -- of the bound's month, so that an API without events does not keep it forever.
  redis.call('SET', KEYS[1], int(bound), 'KEEPTTL')
  local boundExpire = expiresAt('m', monthOfDay(math.floor(bound / 24)), monthRetention)
  if boundExpire > now and redis.call('PEXPIRETIME', KEYS[1]) == -1 then
    redis.call('PEXPIREAT', KEYS[1], int(boundExpire))
  end
  return { 'done', int(bound) }
end

local h = tonumber(found[1])
local d = math.floor(h / 24)
local m = monthOfDay(d)
local hourPrefix = root .. 'h:' .. int(h)
local targets = {}
local dayExpire = expiresAt('d', d, dayRetention)
if dayExpire > now then
  targets[#targets + 1] =
    { prefix = root .. 'd:' .. int(d), expire = int(dayExpire), index = KEYS[3], t = int(d), res = 'd' }
end
local monthExpire = expiresAt('m', m, monthRetention)
if monthExpire > now then
  targets[#targets + 1] =
    { prefix = root .. 'm:' .. int(m), expire = int(monthExpire), index = KEYS[4], t = int(m), res = 'm' }
end

-- The hour's counts are its sealed sections, its hashes and lists being sealed (z:, a seal in
-- progress) and its delta hashes and lists: each read here as it stands, in this one atomic step.
local suffixes = redis.call('SMEMBERS', hourPrefix .. ':parts')
local sealing = redis.call('SMEMBERS', hourPrefix .. ':zparts')
local merged = {}
local listed = {}
local added = 0
local function mark(suffix)
  if not listed[suffix] then
    listed[suffix] = true
    merged[#merged + 1] = suffix
  end
end
-- Writes `values` into the key `suffix` of every target (write(key, values)), then its expiry.
local function intoTargets(suffix, values, perCounter, write)
  if #values == 0 then
    return
  end
  for _, target in ipairs(targets) do
    local key = target.prefix .. ':' .. suffix
    write(key, values)
    redis.call('PEXPIREAT', key, target.expire)
  end
  mark(suffix)
  added = added + #values / perCounter
end
-- Section parts (an encoded section each) are appended whole to the rollups' list of their cube:
-- no field is read; the sealer and the readers decode them.
local function pushParts(key, sections)
  for i = 1, #sections, 64 do
    redis.call('RPUSH', key, unpack(sections, i, math.min(i + 63, #sections)))
  end
end
local function appendParts(list, sections)
  intoTargets(list, sections, 1, pushParts)
end
local function incrementFields(key, fields)
  for i = 1, #fields, 2 do
    redis.call('HINCRBY', key, fields[i], fields[i + 1])
  end
end
local function addHash(key, suffix)
  intoTargets(suffix, redis.call('HGETALL', key), 2, incrementFields)
end
local function addDelta(key, suffix)
  if string.sub(suffix, 1, 2) == 'L:' then
    appendParts(suffix, redis.call('LRANGE', key, 0, -1))
  else
    addHash(key, suffix)
  end
end
-- The hour's section cubes known absent (read here, in this same atomic step): no expiry to set.
local absent = {}
if #targets > 0 then
  -- x is derived from f by the sealer of the day and month: never copied.
  for _, cube in ipairs({ 't', 'k', 'i', 's', 'f' }) do
    local section = redis.call('GET', hourPrefix .. ':S:' .. cube)
    if section then
      appendParts('L:' .. cube, { section })
    else
      absent[cube] = true
    end
  end
  for _, suffix in ipairs(sealing) do
    addDelta(hourPrefix .. ':z:' .. suffix, suffix)
  end
  for _, suffix in ipairs(suffixes) do
    addDelta(hourPrefix .. ':' .. suffix, suffix)
  end
end
if #merged > 0 then
  for _, target in ipairs(targets) do
    local parts = target.prefix .. ':parts'
    -- SADD in slices: unpack() of a huge table would overflow Lua's C stack.
    for i = 1, #merged, 256 do
      redis.call('SADD', parts, unpack(merged, i, math.min(i + 255, #merged)))
    end
    redis.call('PEXPIREAT', parts, target.expire)
    redis.call('ZADD', target.index, target.t, target.t)
    redis.call('ZADD', KEYS[5], lastHourOf(target.res, tonumber(target.t)), target.res .. ':' .. target.t)
  end
end

-- Merged: the hour bucket may expire now (see the header).
local hourExpire = int(expiresAt('h', h, hourRetention))
for _, suffix in ipairs(suffixes) do
  redis.call('PEXPIREAT', hourPrefix .. ':' .. suffix, hourExpire)
end
for _, suffix in ipairs(sealing) do
  redis.call('PEXPIREAT', hourPrefix .. ':z:' .. suffix, hourExpire)
end
for _, cube in ipairs({ 't', 'k', 'i', 's', 'x', 'f' }) do
  if not absent[cube] then
    redis.call('PEXPIREAT', hourPrefix .. ':S:' .. cube, hourExpire)
  end
end
-- A set exists only with members: an empty SMEMBERS above means no key.
if #suffixes > 0 then
  redis.call('PEXPIREAT', hourPrefix .. ':parts', hourExpire)
end
if #sealing > 0 then
  redis.call('PEXPIREAT', hourPrefix .. ':zparts', hourExpire)
end
redis.call('PEXPIREAT', hourPrefix .. ':zid', hourExpire)
if expiresAt('h', h, hourRetention) <= now then
  redis.call('ZREM', KEYS[2], found[1])
elseif #suffixes > 0 then
  -- Compacted: the hour may be sealed now (ingest marked it when it wrote it; again for a v1 store).
  redis.call('ZADD', KEYS[5], int(h), 'h:' .. int(h))
end

redis.call('SET', KEYS[1], int(h), 'KEEPTTL')
-- cmp lives at least as long as the rollups of the hour it names (docs/redis-layout.md "Expiry").
-- (Never an instant already past: that would delete cmp and start compaction over.)
local cmpExpire = redis.call('PEXPIRETIME', KEYS[1])
if monthExpire > now and (cmpExpire == -1 or cmpExpire < monthExpire) then
  redis.call('PEXPIREAT', KEYS[1], int(monthExpire))
end
return { 'hour', int(h), added }
