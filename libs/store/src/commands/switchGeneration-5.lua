--[[
  The last step of a rebuild (docs/rebuild.md): makes g' the current generation, but only if
  g' already holds everything g holds, so that no query sees a count go down at the switch:
  for every partition, wm(g') >= wm(g), and wm(g') >= every per-API offset of g for that
  partition (an API's off may run ahead of wm while a batch is half applied). Readers and
  writers pick up <p>:gen with their next request or batch.

  Not Redis Cluster safe as a whole (the keys below live in different slots, and the per-API
  offset keys are derived from ARGV[3..4] for every member of the apis set): the rebuild needs
  one Redis (or a cluster's single-slot emulation), like every other generation-wide operation.

  KEYS[1]  <p>:gen        string  current generation (absent = 1)
  KEYS[2]  <p>:rebuild    hash    rebuild state (status must be 'compacting', target = g')
  KEYS[3]  <p>:g<g>:wm    hash    partition watermarks of g
  KEYS[4]  <p>:g<g'>:wm   hash    partition watermarks of g'
  KEYS[5]  <p>:apis       set     every known apiId

  ARGV[1]  g (expected current generation)
  ARGV[2]  g'
  ARGV[3], ARGV[4]  prefix and suffix of g's per-API offset keys: ARGV[3] .. apiId .. ARGV[4]
  ARGV[5]  now (unix ms), recorded as switchedAt

  Returns  {'ok'}                                   switched; rebuild status = 'switched'
           {'gen', current}                         the current generation is not g: nothing written
           {'state', status, target}                the rebuild is not ready (or was aborted)
           {'behind', n, field, needed, has, ...}   n partitions of g' are behind g (up to 8 listed)
]]
local current = redis.call('GET', KEYS[1]) or '1'
if current ~= ARGV[1] then
  return { 'gen', current }
end
local status = redis.call('HGET', KEYS[2], 'status') or ''
local target = redis.call('HGET', KEYS[2], 'target') or ''
if status ~= 'compacting' or target ~= ARGV[2] then
  return { 'state', status, target }
end

local has = {}
local flat = redis.call('HGETALL', KEYS[4])
for i = 1, #flat, 2 do
  has[flat[i]] = tonumber(flat[i + 1])
end
local needed = {}
local function need(field, offset)
  local n = tonumber(offset)
  if needed[field] == nil or n > needed[field] then
    needed[field] = n
  end
end
flat = redis.call('HGETALL', KEYS[3])
for i = 1, #flat, 2 do
  need(flat[i], flat[i + 1])
end
for _, api in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  flat = redis.call('HGETALL', ARGV[3] .. api .. ARGV[4])
  for i = 1, #flat, 2 do
    need(flat[i], flat[i + 1])
  end
end

local behind = {}
local count = 0
for field, n in pairs(needed) do
  local h = has[field] or -1
  if h < n then
    count = count + 1
    if count <= 8 then
      behind[#behind + 1] = field
      behind[#behind + 1] = string.format('%.0f', n)
      behind[#behind + 1] = string.format('%.0f', h)
    end
  end
end
if count > 0 then
  table.insert(behind, 1, count)
  table.insert(behind, 1, 'behind')
  return behind
end

redis.call('SET', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'status', 'switched', 'switchedAt', ARGV[5])
return { 'ok' }
