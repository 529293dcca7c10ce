--[[
  Admits a query request against its limits in one call (docs/query-isolation.md "Limits"): the rate
  windows first, then the concurrency slots, for its root key and, for a read token, for its subject
  (an end user of the root key) too. Every key is in the root key's hash slot ({<root key hash>}).

  Rate: a fixed window per key (INCR; the first request of a window sets its expiry). The subject's
  window is counted first, and a request its subject may not send is not counted against the root
  key, so a flooding end user uses up their own share and nothing of the rest.
  Slots: a counting semaphore with expiry: one slot per request in progress in each set, taken in
  every set or in none; expired slots are dropped first, so a service that crashed while holding
  slots leaks none for longer than the TTL. The time is the Redis server's (TIME), one clock for
  every service. A request refused by a rate window takes no slot.

  KEYS[2i-1] <p>:rl:{<root key hash>}[:s:<sub>]      string rate window (i = 1 root key, 2 subject)
  KEYS[2i]   <p>:slots:{<root key hash>}[:s:<sub>]   zset   member = request id, score = expiry (unix ms)
  ARGV[1]    window (ms)
  ARGV[2]    request id
  ARGV[3]    slot TTL (ms)
  ARGV[2+2i] requests per window of KEYS[2i-1] (0 = no limit: not counted)
  ARGV[3+2i] slots of KEYS[2i] (0 = no limit: none taken)

  Returns {0} when admitted (a slot taken in every limited set), {1, i, ms} when the rate window
  of owner i is full (ms: until it ends), {2, i} when owner i's slots are all taken (nothing taken).
]]
local owners = #KEYS / 2
local window = tonumber(ARGV[1])
local id = ARGV[2]
local ttl = tonumber(ARGV[3])
local function rateMax(i) return tonumber(ARGV[2 + 2 * i]) end
local function slotMax(i) return tonumber(ARGV[3 + 2 * i]) end

for i = owners, 1, -1 do
  local max = rateMax(i)
  if max > 0 then
    local key = KEYS[2 * i - 1]
    local count = redis.call('INCR', key)
    local left = window
    if count == 1 then
      redis.call('PEXPIRE', key, window)
    else
      left = redis.call('PTTL', key)
      if left < 0 then
        redis.call('PEXPIRE', key, window)
        left = window
      end
    end
    if count > max then return {1, i, left} end
  end
end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, owners do
  if slotMax(i) > 0 then
    local set = KEYS[2 * i]
    redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
    if redis.call('ZCARD', set) >= slotMax(i) then return {2, i} end
  end
end
for i = 1, owners do
  if slotMax(i) > 0 then
    redis.call('ZADD', KEYS[2 * i], now + ttl, id)
    redis.call('PEXPIRE', KEYS[2 * i], ttl)
  end
end
return {0}
