--[[
  Retention housekeeping of one API's bucket indices (docs/rollups.md "Retention"): the
  buckets themselves expire on their own (PEXPIREAT set by whoever writes them); this drops
  the index entries of buckets that can no longer exist, so that "first bucket holding data"
  and the compactor's walk never see them. Every key is in the API's hash slot {api}.

  An hour not compacted yet keeps its bucket (no expiry) and its entry until the compactor has
  merged it, even past the hour horizon: hour entries are dropped only up to cmp.

  KEYS[1]  <p>:g<g>:{api}:idx:h    zset  hour indices holding data
  KEYS[2]  <p>:g<g>:{api}:idx:d    zset  day indices
  KEYS[3]  <p>:g<g>:{api}:idx:m    zset  month indices
  KEYS[4]  <p>:g<g>:{api}:cmp      string  last hour compacted (absent = none)

  ARGV[1..3]  first hour / day / month index still retained (libs/core horizonsAt)

  Returns  {removed hours, removed days, removed months}
]]
local cmp = tonumber(redis.call('GET', KEYS[4]) or '-1')
local firstKept = { math.min(tonumber(ARGV[1]), cmp + 1), tonumber(ARGV[2]), tonumber(ARGV[3]) }
local removed = {}
for i = 1, 3 do
  removed[i] = redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. string.format('%.0f', firstKept[i]))
end
return removed
