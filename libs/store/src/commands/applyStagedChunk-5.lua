--[[
  Applies the oldest staged chunk of one API's counter increments (docs/store-v2.md "Applies
  staged in chunks"): a batch of a busy API whose increments exceed the per-call bound is
  staged by applyApiBatch (its offset moves in that same call, so it is counted exactly once
  from then on) and applied here one bounded chunk per call. LPOP and the increments are one
  atomic step: whoever calls it (the writer right after staging, a writer that finds a stage
  left by a crashed one, the compactor before it compacts), each chunk is applied once.
  Every key is in the API's hash slot {api}; bucket keys are derived from ARGV[1] as keys.ts
  documents for bucketRoot.

  KEYS[1]  <p>:g<g>:{api}:stage   list  chunks waiting, oldest first
  KEYS[2..4]  idx:h, idx:d, idx:m    zsets of bucket indices holding data
  KEYS[5]  <p>:g<g>:{api}:dirty   zset  buckets with a delta to seal

  ARGV[1]  bucket root "<p>:g<g>:{api}:" (keys.ts apiKeys().bucketRoot)

  A chunk is text tokens separated by one space, then, when it holds section parts, a newline
  and the parts' bytes (staged-chunks.ts ChunkWriter): the number of buckets B, then per bucket
  r ('h'|'d'|'m', or 'n': a minute bucket, whose hashes get no index, dirty or parts entry), t, expireAt
  (unix ms; 0 = none), the number of cubes C, then per cube its
  suffix, the number of fields F and F pairs field, increment (applyApiBatch's layout for a
  bucket's cubes), then the number of parts L and per part its list's suffix ("L:<cube>") and its
  length in bytes; each part is appended whole (RPUSH) to its list, as applyApiBatch does.

  Returns  chunks still waiting after this call (0 = the stage is empty; also when it was).
]]
--- @include "includes/bucketWrites"
local chunk = redis.call('LPOP', KEYS[1])
if not chunk then
  return 0
end
local root = ARGV[1]
local index = { h = KEYS[2], d = KEYS[3], m = KEYS[4] }
local newline = string.find(chunk, '\n', 1, true)
local tokens = {}
for token in string.gmatch(newline and string.sub(chunk, 1, newline - 1) or chunk, '[^ ]+') do
  tokens[#tokens + 1] = token
end
-- Position of the next part's first byte.
local p = newline and newline + 1 or 0
local a = 2
for _ = 1, tonumber(tokens[1]) do
  local r, t, expireAt, cubes = tokens[a], tokens[a + 1], tokens[a + 2], tonumber(tokens[a + 3])
  a = a + 4
  local prefix = root .. r .. ':' .. t
  local minute = r == 'n'
  if not minute then
    markBucket(index[r], KEYS[5], r, t)
  end
  local suffixes = {}
  for _ = 1, cubes do
    local suffix, fields = tokens[a], tonumber(tokens[a + 1])
    a = addFields(prefix .. ':' .. suffix, tokens, a + 2, fields, expireAt)
    suffixes[#suffixes + 1] = suffix
  end
  local parts = tonumber(tokens[a])
  a = a + 1
  for _ = 1, parts do
    local suffix, length = tokens[a], tonumber(tokens[a + 1])
    a = a + 2
    appendPart(prefix .. ':' .. suffix, string.sub(chunk, p, p + length - 1), expireAt)
    p = p + length
    suffixes[#suffixes + 1] = suffix
  end
  if #suffixes > 0 and not minute then
    redis.call('SADD', prefix .. ':parts', unpack(suffixes))
    if expireAt ~= '0' then
      redis.call('PEXPIREAT', prefix .. ':parts', expireAt)
    end
  end
end
return redis.call('LLEN', KEYS[1])
