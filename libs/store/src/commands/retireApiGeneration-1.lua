--[[
  One API's share of a rebuild's switch from generation g to g' (docs/rebuild.md "The switch"), atomic in
  the API's slot {api}: checks that g' holds every event of this API that g holds, and if so retires the API
  in g, so that no live writer of g can count another event of it there (applyApiBatch.lua refuses a
  retired API: the writer waits for <p>:gen to move, then resumes in g'). Once every API is retired, the
  switch sets <p>:gen = g' (generation-switch.ts): at that instant g' holds everything g holds, API by API,
  so no total goes down. A Redis Cluster cannot run one script over every API's slot; this is why the
  switch is one script per API.

  KEYS[1]  <p>:g<g>:{api}:off   hash  "<topic>/<partition>" -> last offset of g applied for this API;
                                      the field "@retired" = g' marks the API retired in g

  ARGV[1]  g'
  ARGV[2..]  wm of g': field, offset, field, offset, ... (read just before; wm only moves forward, so a
             value read earlier is a safe lower bound)

  Returns  {'ok'}                                   retired now or before (idempotent)
           {'behind', n, field, needed, has, ...}   n partitions where wm(g') < off(g) (up to 8 listed):
                                                    nothing written
]]
if redis.call('HEXISTS', KEYS[1], '@retired') == 1 then
  return { 'ok' }
end
local has = {}
for i = 2, #ARGV, 2 do
  has[ARGV[i]] = tonumber(ARGV[i + 1])
end
local behind = {}
local count = 0
local flat = redis.call('HGETALL', KEYS[1])
for i = 1, #flat, 2 do
  local field = flat[i]
  if string.sub(field, 1, 1) ~= '@' then
    local needed = tonumber(flat[i + 1])
    local h = has[field] or -1
    if h < needed then
      count = count + 1
      if count <= 8 then
        behind[#behind + 1] = field
        behind[#behind + 1] = string.format('%.0f', needed)
        behind[#behind + 1] = string.format('%.0f', h)
      end
    end
  end
end
if count > 0 then
  table.insert(behind, 1, count)
  table.insert(behind, 1, 'behind')
  return behind
end
redis.call('HSET', KEYS[1], '@retired', ARGV[1])
return { 'ok' }
