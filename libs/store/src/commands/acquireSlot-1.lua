--[[
  A counting semaphore with expiry: one slot per query request of a root key in progress, so that
  several query services share one concurrency limit. Slots carry their expiry as score; expired
  ones are dropped first, so a service that crashed while holding slots leaks none for longer than
  the TTL. The time is the Redis server's (TIME), one clock for every service.

  KEYS[1]  <p>:slots:<root key hash>   zset  member = request id, score = expiry (unix ms)
  ARGV[1]  request id
  ARGV[2]  max slots (> 0)
  ARGV[3]  slot TTL in ms

  Returns 1 when the slot was taken, else 0.
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
