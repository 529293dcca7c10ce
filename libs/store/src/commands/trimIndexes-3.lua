--[[
  Retention housekeeping of one API's bucket indices (docs/rollups.md "Retention"): the
  buckets themselves expire on their own (PEXPIREAT set by whoever writes them); this drops
  the index entries of buckets that can no longer exist, so that "first bucket holding data"
  and the compactor's walk never see them. Every key is in the API's hash slot {api}.

  KEYS[1]  <p>:g<g>:{api}:idx:h    zset  hour indices holding data
  KEYS[2]  <p>:g<g>:{api}:idx:d    zset  day indices
  KEYS[3]  <p>:g<g>:{api}:idx:m    zset  month indices

  ARGV[1..3]  first hour / day / month index still retained (libs/core horizonsAt)

  Returns  {removed hours, removed days, removed months}
]]
local removed = {}
for i = 1, 3 do
  removed[i] = redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[i])
end
return removed
