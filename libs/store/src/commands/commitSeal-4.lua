--[[
  Finishes sealing one bucket (docs/store-v2.md "Sealing"): writes its new sections and deletes the
  sealing hashes and lists they now hold, in one atomic step, so that a reader sees every count
  exactly once (before: section + sealing hashes; after: the new section). Every key is in the API's
  hash slot {api}; section and sealing keys are named from ARGV[1] as keys.ts documents
  (apiKeys().section, .sealing). Called by libs/store/src/seal-scripts.ts after beginSeal-5.lua.

  KEYS[1]  <b>:zparts    set     cube suffixes being sealed
  KEYS[2]  <p>:g<g>:{api}:seq    string the API's seal sequence: lives at least as long as its sections
  KEYS[3]  <p>:g<g>:{api}:cmp    string last compacted hour (read for an hour bucket only)
  KEYS[4]  <b>:zid       string  the id of the seal in progress

  ARGV[1]  bucket prefix "<b>:"
  ARGV[2]  expireAt (unix ms) of the bucket: the sections' PEXPIREAT (the same retention rule as its
           hashes); 0 = the bucket is past its retention: its sections are deleted, none written
  ARGV[3]  the hour index when the bucket is an hour, else "". An hour not compacted yet (> cmp) keeps
           its sections without expiry whatever ARGV[2] says, as ingest keeps its hashes: compaction
           (compactNextHour) reads them and only then sets the hour's expiry, so an hour whose
           retention ends before it is compacted still reaches its rollups.
  ARGV[4]  the id of the seal whose sealing hashes the caller read (beginSeal-5.lua's reply)
  ARGV[5]  number of cubes C, then per cube: cube letter, the 8 version bytes of the section it was
           built on ("" = none), the new section ("" = none: the cube has no row)

  Two checks, both needed. The id: the sealing hashes now in zparts are the ones the caller read
  (without it, a sealer that resumed a seal another then committed could commit over the next
  seal's hashes, which it never read, and delete them: counts lost). The section versions: the
  sections are the ones the caller added those hashes to (another sealer of the same seal may have
  committed first).

  Returns  {'ok'}                 written, sealing hashes deleted
           {'conflict', cube}     a section changed since it was read (another sealer): nothing written
           {'gone'}               the seal read is no longer in progress (another sealer finished it):
                                  nothing written
]]
local root = ARGV[1]
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('GET', KEYS[4]) ~= ARGV[4] then
  return { 'gone' }
end
local cubes = tonumber(ARGV[5])
local a = 6
for _ = 1, cubes do
  local cube, held = ARGV[a], ARGV[a + 1]
  if redis.call('GETRANGE', root .. 'S:' .. cube, 4, 11) ~= held then
    return { 'conflict', cube }
  end
  a = a + 3
end

local expireAt = ARGV[2]
if ARGV[3] ~= '' then
  local cmp = redis.call('GET', KEYS[3])
  if not cmp or tonumber(ARGV[3]) > tonumber(cmp) then
    expireAt = nil -- not compacted yet: no expiry (see ARGV[3])
  end
end

-- Every key deleted here goes in one UNLINK (in slices: unpack() of a huge table would overflow Lua's
-- C stack), and a section and its expiry in one SET: a tiny bucket's commit is a few commands.
local gone = {}
a = 6
for _ = 1, cubes do
  local key, section = root .. 'S:' .. ARGV[a], ARGV[a + 2]
  if section == '' or expireAt == '0' then
    gone[#gone + 1] = key
  elseif expireAt then
    redis.call('SET', key, section, 'PXAT', expireAt)
  else
    redis.call('SET', key, section)
  end
  a = a + 3
end
for _, suffix in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  gone[#gone + 1] = root .. 'z:' .. suffix
end
gone[#gone + 1] = KEYS[1]
gone[#gone + 1] = KEYS[4]
for i = 1, #gone, 256 do
  redis.call('UNLINK', unpack(gone, i, math.min(i + 255, #gone)))
end
if expireAt and expireAt ~= '0' then
  local current = redis.call('PEXPIRETIME', KEYS[2])
  if current == -1 or (current >= 0 and current < tonumber(expireAt)) then
    redis.call('PEXPIREAT', KEYS[2], expireAt)
  end
end
return { 'ok' }
