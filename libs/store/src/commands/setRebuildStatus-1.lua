--[[
  Moves the rebuild state (docs/rebuild.md) from one status to another, compare-and-set, so
  that two operators (or an abort racing the switch) can never both win: the switch script
  itself requires 'compacting', and abort moves away from it atomically.

  KEYS[1]  <p>:rebuild   hash  status, source, target, since, boundary, group, startedAt, ...

  ARGV[1]  statuses allowed now, comma-separated; '-' stands for "no rebuild recorded"
  ARGV[2]  new status
  ARGV[3]  '1' to start afresh (delete every field of a finished rebuild first), '0' to keep them
  ARGV[4..]  more fields to set: name, value, ...

  Returns  {1}               moved
           {0, status}       the current status ('-' = none) is not allowed: nothing written
]]
local status = redis.call('HGET', KEYS[1], 'status') or '-'
local allowed = false
for s in string.gmatch(ARGV[1], '[^,]+') do
  if s == status then
    allowed = true
  end
end
if not allowed then
  return { 0, status }
end
if ARGV[3] == '1' then
  redis.call('DEL', KEYS[1])
end
redis.call('HSET', KEYS[1], 'status', ARGV[2])
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return { 1 }
