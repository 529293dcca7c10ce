--[[
  A counting semaphore with expiry, nested: one slot per query request in progress in each of the
  given sets, so that several query services share one concurrency limit per root key and, inside
  it, one per read-token subject (an end user of the root key). A request takes a slot in every set
  or in none: a subject at its own limit never holds one of its root key's. Slots carry their expiry
  as score; expired ones are dropped first, so a service that crashed while holding slots leaks none
  for longer than the TTL. The time is the Redis server's (TIME), one clock for every service.

  KEYS[1]    <p>:slots:{<root key hash>}            zset  member = request id, score = expiry (unix ms)
  KEYS[2]    <p>:slots:{<root key hash>}:s:<sub>    zset  (read tokens only) the same for their subject
  ARGV[1]    request id
  ARGV[2]    slot TTL in ms
  ARGV[2+i]  max slots of KEYS[i] (> 0)

  Returns 0 when a slot was taken in every set, else i of the first set that was full (nothing taken).
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  if redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[2 + i]) then
    return i
  end
end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now + ttl, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 0
