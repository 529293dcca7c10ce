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
  ARGV[2]  alert root "<p>:{api}:alerts" (keys.ts alertKeys().base): the crossings stream is ARGV[2]:crossings,
           the level table of version v ARGV[2]:lv:<v>, a period's recorded crossings ARGV[2]:x:<period>:<ps>;
           an alert counter is ARGV[1]alerts:n:<counterId>:<ps> (only read when the chunk has alert counters)

  A chunk is text tokens separated by one space, then, when it holds section parts, a newline
  and the parts' bytes (staged-chunks.ts ChunkWriter): the number of buckets B, then per bucket
  r ('h'|'d'|'m'; 'n': a minute bucket, whose hashes get no index, dirty or parts entry, and whose part is
  its packed f fields (includes/bucketWrites.lua writePart); 'z<n>d'|'z<n>m': a
  billing zone's edge, with a parts set and a dirty entry but no index), t, expireAt
  (unix ms; 0 = none), the number of cubes C, then per cube its
  suffix, the number of fields F and F pairs field, increment (applyApiBatch's layout for a
  bucket's cubes), then the number of parts L and per part its list's suffix ("L:<cube>", "L:f:<shard>") and its
  length in bytes; each part is appended whole (RPUSH) to its list, as applyApiBatch does.
  When the chunk holds alert counters' increments (docs/alerts.md "Detection"), the buckets' tokens are followed
  by the number of counters A, the rules version v and the batch's clock (detectedAt), then per counter
  applyApiBatch's layout of a counter (counterId, period, periodStart, expireAt, V, V levels, M, M pairs) but
  with each member given as its length in bytes, its bytes following the parts' (members are any text, '' too).
  The levels are those of the batch's call; the rules of a level are read from the level table of version v
  (the version that call checked): a chunk applies the rules its batch was counted with.

  Returns  chunks still waiting after this call (0 = the stage is empty; also when it was).
]]
--- @include "includes/bucketWrites"
--- @include "includes/alertCounters"
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
    writePart(r, prefix .. ':' .. suffix, string.sub(chunk, p, p + length - 1), expireAt)
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
local counters = tonumber(tokens[a] or '0')
if counters > 0 then
  local alerts, version, now = ARGV[2], tokens[a + 1], tokens[a + 2]
  local function keysOf(counterId, period, periodStart)
    return root .. 'alerts:n:' .. counterId .. ':' .. periodStart, alerts .. ':x:' .. period .. ':' .. periodStart
  end
  local function memberAt(q)
    local length = tonumber(tokens[q])
    local member = string.sub(chunk, p, p + length - 1)
    p = p + length
    return member
  end
  addAlertCounters(tokens, a + 3, counters, keysOf, memberAt, alerts .. ':crossings', alerts .. ':lv:' .. version,
    now)
end
return redis.call('LLEN', KEYS[1])
