--[[
  Moves the watermark of one Kafka partition forward, compare-and-set.

  KEYS[1]  <p>:g<g>:wm   hash "<topic>/<partition>" -> offset through which every message is applied

  ARGV[1]  field "<topic>/<partition>"
  ARGV[2]  expected current value (-1 = none)
  ARGV[3]  new value

  Returns  {1}            moved
           {0, actual}    the stored value differs from ARGV[2] (actual, -1 = none): nothing written.
                          Another worker owns the partition, or Redis lost recent writes.
]]
local actual = redis.call('HGET', KEYS[1], ARGV[1]) or '-1'
if actual ~= ARGV[2] then
  return { 0, actual }
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return { 1 }
