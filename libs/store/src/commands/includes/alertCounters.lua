--[[
  Alert counters and crossings (docs/alerts.md "Detection"), for applyApiBatch (included with
  `--- @include "includes/alertCounters"`): adds a batch's increments to the counters of the API's alert
  rules and appends each crossing they make to the API's crossings stream, once.
]]

-- Adds `counters` alert counters' increments, their ARGV from position a and their keys after KEYS[k]
-- (applyApiBatch.lua's header: the layout). For every member, HINCRBY answers the new count; each level L
-- with old < L <= new is crossed for every rule that has it (the level table `levelTable`, read only then),
-- and appended to `stream` when its tuple
-- "ruleId|level|member" joins the period's set of recorded crossings (SADD answers 1): a replayed batch or
-- a rebuild counting again finds it there and appends nothing.
-- The stream keeps CROSSINGS_KEPT_MS (alert-detection.ts) of entries: XADD trims older ones (MINID ~, by
-- the stream ids, which are Redis's clock, hence TIME and not the batch's clock).
local CROSSINGS_KEPT_MS = 30 * 86400000
local function addAlertCounters(counters, a, k, stream, levelTable, now)
  local trimBefore
  for _ = 1, counters do
    local counterId, period, periodStart, expireAt = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
    local levelCount = tonumber(ARGV[a + 4])
    a = a + 5
    -- Levels as numbers to compare and as the strings received to write (tostring of a large number
    -- would print it in exponent form).
    local levels, levelText = {}, {}
    for l = 1, levelCount do
      levels[l] = tonumber(ARGV[a])
      levelText[l] = ARGV[a]
      a = a + 1
    end
    local counter, recorded = KEYS[k + 1], KEYS[k + 2]
    k = k + 2
    local members = tonumber(ARGV[a])
    a = a + 1
    for _ = 1, members do
      local member, increment = ARGV[a], tonumber(ARGV[a + 1])
      a = a + 2
      local new = redis.call('HINCRBY', counter, member, increment)
      local old = new - increment
      -- The first level above old (binary search: a counter shared by many rules may have many levels).
      local lo, hi = 1, levelCount + 1
      while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        if levels[mid] > old then
          hi = mid
        else
          lo = mid + 1
        end
      end
      for l = lo, levelCount do
        if levels[l] > new then
          break
        end
        local rules = redis.call('HGET', levelTable, counterId .. ':' .. levelText[l]) or ''
        for ruleId in string.gmatch(rules, '%S+') do
          if redis.call('SADD', recorded, ruleId .. '|' .. levelText[l] .. '|' .. member) == 1 then
            if not trimBefore then
              local time = redis.call('TIME')
              trimBefore = tonumber(time[1]) * 1000 - CROSSINGS_KEPT_MS
            end
            redis.call('XADD', stream, 'MINID', '~', trimBefore, '*', 'ruleId', ruleId, 'member', member,
              'period', period, 'periodStart', periodStart, 'level', levelText[l], 'count', new, 'detectedAt', now)
          end
        end
      end
    end
    redis.call('PEXPIREAT', counter, expireAt)
    -- The set exists once a crossing was recorded; its expiry only moves forward (counters of several
    -- rules share it).
    local current = redis.call('PEXPIRETIME', recorded)
    if current == -1 or (current >= 0 and current < tonumber(expireAt)) then
      redis.call('PEXPIREAT', recorded, expireAt)
    end
  end
end
