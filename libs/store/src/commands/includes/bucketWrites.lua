--[[
  Writes into a bucket (counter increments, section parts), shared by applyApiBatch and applyStagedChunk
  (included with `--- @include "includes/bucketWrites"`; it includes the calendar itself).
]]
--- @include "includes/time"

-- Bucket (r, t) holds data: listed in its resolution's index, and in dirty (to be sealed; the
-- score is its last hour). A billing zone's edge (r 'z<n>d'|'z<n>m') has no index (index nil): dirty only.
local function markBucket(index, dirty, r, t)
  if index then
    redis.call('ZADD', index, t, t)
  end
  redis.call('ZADD', dirty, lastHourOf(r, tonumber(t)), r .. ':' .. t)
end

-- Adds `fields` pairs field, increment of `list` (from position a) to the hash `key`, which then
-- gets the bucket's expiry (expireAt '0': none yet). Returns the position after the pairs.
local function addFields(key, list, a, fields, expireAt)
  for _ = 1, fields do
    redis.call('HINCRBY', key, list[a], list[a + 1])
    a = a + 2
  end
  if expireAt ~= '0' then
    redis.call('PEXPIREAT', key, expireAt)
  end
  return a
end

-- Appends one encoded section part whole to the parts list `key`, which then gets the bucket's
-- expiry (expireAt '0': none yet).
local function appendPart(key, section, expireAt)
  redis.call('RPUSH', key, section)
  if expireAt ~= '0' then
    redis.call('PEXPIREAT', key, expireAt)
  end
end

-- Writes a part of bucket r: a section appended whole to its parts list `key`; or, for a minute bucket
-- (r 'n'), its f fields packed into one field of the f hash `key` (field-codec.ts MinuteFieldsPacker), named
-- '#' .. the hash's length: new, since a minute's fields are never deleted (and should one be, HSETNX
-- moves on to the next free name rather than overwrite counts). Then the key gets the bucket's expiry
-- (expireAt '0': none yet).
local function writePart(r, key, section, expireAt)
  if r ~= 'n' then
    return appendPart(key, section, expireAt)
  end
  local n = redis.call('HLEN', key)
  while redis.call('HSETNX', key, '#' .. n, section) == 0 do
    n = n + 1
  end
  if expireAt ~= '0' then
    redis.call('PEXPIREAT', key, expireAt)
  end
end
