--[[
  Assigns dictionary codes to values of one dictionary of one API (append-only).

  KEYS[1]  <p>:g<g>:{api}:dict:<d>     list: the value at position n has code n
  KEYS[2]  <p>:g<g>:{api}:dict:<d>:ix  hash: value -> code

  ARGV     the values to encode (any order; repeats allowed)

  Returns  an array of integer codes, one per ARGV entry, in ARGV order.

  Idempotent: a value that already has a code keeps it, so concurrent writers (and a
  writer replaying a batch) always agree. The list and the hash change together inside
  this script, so they never disagree, not even after a crash (AOF keeps a script's
  effects as one transaction).
]]
local list, index = KEYS[1], KEYS[2]
local codes = {}
for n = 1, #ARGV do
  local value = ARGV[n]
  local code = redis.call('HGET', index, value)
  if code then
    codes[n] = tonumber(code)
  else
    local length = redis.call('RPUSH', list, value)
    redis.call('HSET', index, value, length - 1)
    codes[n] = length - 1
  end
end
return codes
