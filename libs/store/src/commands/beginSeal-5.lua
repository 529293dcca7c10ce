--[[
  Starts sealing one bucket of one API (docs/store-v2.md "Sealing"): moves its delta out of the
  writers' way in one atomic step, so that new writes start a fresh delta while the compactor folds
  this one into the bucket's sections. Every key is in the API's hash slot {api}; the delta hashes
  are named from ARGV[1] and the members of the parts set, as keys.ts documents (apiKeys().cube,
  .sealing). Called by libs/store/src/seal-scripts.ts.

  KEYS[1]  <b>:parts     set     cube suffixes of the delta
  KEYS[2]  <b>:zparts    set     cube suffixes being sealed
  KEYS[3]  <p>:g<g>:{api}:dirty  zset  buckets to seal (member "<r>:<t>")
  KEYS[4]  <p>:g<g>:{api}:seq    string the API's seal sequence
  KEYS[5]  <b>:zid       string  the id of the seal in progress

  ARGV[1]  bucket prefix "<b>:" (a delta hash is ARGV[1] .. suffix, its sealing name ARGV[1] .. 'z:' .. suffix)
  ARGV[2]  the bucket's member in dirty "<r>:<t>"

  If zparts exists, a seal of this bucket is in progress (one that died, or one another sealer is
  running): it is resumed as it stands (the delta written since stays the delta), under its id. Else
  every hash listed in parts is RENAMEd to its sealing name and parts to zparts (no field is read or
  written: O(number of hashes)), the bucket leaves dirty (a write after this marks it again), and
  the seal gets a new id. The id is what commitSeal-4.lua checks: a sealer that read one seal can
  never commit over the next one, whose sealing hashes it has not read.

  The new sections' version is max(seq + 1, Redis TIME in µs), stored back into seq: it never repeats
  for a key, also after Redis lost the tail of its AOF (a version lost with it is older than any taken
  after the restart), so a reader's cache keyed by version cannot hold counts Redis no longer has. A
  new seal's id is that version (so it never repeats either).

  Returns  {'empty'}                                nothing to seal (no delta, no seal in progress)
           {'seal', version, id, s1, ..., sN}       the sealing suffixes (members of zparts)
]]
local root = ARGV[1]
local fresh = redis.call('EXISTS', KEYS[2]) == 0
-- A fresh seal's suffixes are the members parts had (renamed to zparts): read once.
local suffixes
if fresh then
  suffixes = redis.call('SMEMBERS', KEYS[1])
  if #suffixes == 0 then
    redis.call('ZREM', KEYS[3], ARGV[2])
    return { 'empty' }
  end
  for _, suffix in ipairs(suffixes) do
    -- A hash listed in parts may have expired with its bucket (then nothing is left to seal of it).
    if redis.call('EXISTS', root .. suffix) == 1 then
      redis.call('RENAME', root .. suffix, root .. 'z:' .. suffix)
    end
  end
  redis.call('RENAME', KEYS[1], KEYS[2])
  redis.call('ZREM', KEYS[3], ARGV[2])
end

local time = redis.call('TIME')
local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
local version = math.max((tonumber(redis.call('GET', KEYS[4])) or 0) + 1, micros)
local text = string.format('%.0f', version)
redis.call('SET', KEYS[4], text, 'KEEPTTL')

-- A seal in progress without an id (begun by earlier code, or copied by a rebuild) gets one now.
local id = (not fresh) and redis.call('GET', KEYS[5]) or false
if not id then
  id = text
  redis.call('SET', KEYS[5], id)
  -- The id lives as long as the seal it names (zparts has its bucket's expiry, or none).
  local expireAt = redis.call('PEXPIRETIME', KEYS[2])
  if expireAt > 0 then
    redis.call('PEXPIREAT', KEYS[5], expireAt)
  end
end

local out = { 'seal', text, id }
for _, suffix in ipairs(suffixes or redis.call('SMEMBERS', KEYS[2])) do
  out[#out + 1] = suffix
end
return out
