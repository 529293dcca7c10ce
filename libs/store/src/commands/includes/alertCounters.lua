--[[
  Alert counters and crossings (docs/alerts.md "Detection"), shared by applyApiBatch (the counters of its own
  call) and applyStagedChunk (the counters a call staged; included with `--- @include "includes/alertCounters"`):
  adds a batch's increments to the counters of the API's alert rules and appends each crossing they make to the
  API's crossings stream, once.
]]

-- Adds `counters` alert counters' increments read from `list` (ARGV, or a staged chunk's tokens) from position
-- a, in applyApiBatch.lua's layout of a counter (its header), and returns the position after them.
-- keysOf(counterId, period, periodStart) answers the counter's hash and the set of its period's recorded
-- crossings; memberAt(position) the member written at that position of `list` (a staged chunk keeps its bytes
-- apart). For every member, HINCRBY answers the new count; each level L with old < L <= new is crossed for
-- every rule that has it (the level table `levelTable`, read only then), and appended to `stream` when its
-- tuple "ruleId|level|member" joins the period's set of recorded crossings (SADD answers 1): a replayed batch
-- or a rebuild counting again finds it there and appends nothing. Whichever call applies an increment, the
-- counter only grows and each increment is added once, so each level is crossed by exactly one of them.
-- The stream keeps CROSSINGS_KEPT_MS (alert-detection.ts) of entries: XADD trims older ones (MINID ~, by
-- the stream ids, which are Redis's clock, hence TIME and not the batch's clock).
local CROSSINGS_KEPT_MS = 30 * 86400000
local function addAlertCounters(list, a, counters, keysOf, memberAt, stream, levelTable, now)
  local trimBefore
  for _ = 1, counters do
    local counterId, period, periodStart, expireAt = list[a], list[a + 1], list[a + 2], list[a + 3]
    local levelCount = tonumber(list[a + 4])
    a = a + 5
    -- Levels as numbers to compare and as the strings received to write (tostring of a large number
    -- would print it in exponent form).
    local levels, levelText = {}, {}
    for l = 1, levelCount do
      levels[l] = tonumber(list[a])
      levelText[l] = list[a]
      a = a + 1
    end
    local counter, recorded = keysOf(counterId, period, periodStart)
    local members = tonumber(list[a])
    a = a + 1
    for _ = 1, members do
      local member, increment = memberAt(a), tonumber(list[a + 1])
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
  return a
end
