--[[
  The calendar and retention rule of libs/core/src/time.ts, for the Lua scripts (included with
  `--- @include "includes/time"`; commands.ts splices this file in). time-lua.int.test.ts checks
  every function against the TypeScript in a real Redis, on random inputs.
]]
local HOUR_MS = 3600000
local DAY_MS = 86400000

-- Month index (months since January 1970) of a day index (days since 1970-01-01), UTC.
-- H. Hinnant's civil_from_days; the same calendar as time.ts monthOf.
local function monthOfDay(days)
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local month = mp < 10 and mp + 3 or mp - 9
  local year = yoe + era * 400
  if month <= 2 then
    year = year + 1
  end
  return (year - 1970) * 12 + (month - 1)
end

-- Day index of the first day of a month index (days_from_civil).
local function firstDayOfMonth(m)
  local year = 1970 + math.floor(m / 12)
  local month = m - math.floor(m / 12) * 12 + 1
  if month <= 2 then
    year = year - 1
  end
  local era = math.floor(year / 400)
  local yoe = year - era * 400
  local mp = month > 2 and month - 3 or month + 9
  local doy = math.floor((153 * mp + 2) / 5)
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

-- End (unix ms, exclusive) of bucket `index` of resolution 'h', 'd' or 'm', or of a billing zone's edge
-- 'z<n>d'|'z<n>m' (index = a minute: the end of its UTC day) (time.ts bucketEnd).
local function bucketEnd(res, index)
  if res == 'h' then
    return (index + 1) * HOUR_MS
  elseif res == 'd' then
    return (index + 1) * DAY_MS
  elseif string.byte(res, 1) == 122 then
    return (math.floor(index / 1440) + 1) * DAY_MS
  end
  return firstDayOfMonth(index + 1) * DAY_MS
end

-- The retention rule: a bucket expires at its end + the retention of its resolution (time.ts expiresAt).
local function expiresAt(res, index, retentionMs)
  return bucketEnd(res, index) + retentionMs
end

-- Last hour index of bucket `index` of resolution 'h', 'd', 'm' or an edge (time.ts lastHourOf): the score of a
-- bucket in an API's dirty set (docs/store-v2.md).
local function lastHourOf(res, index)
  return bucketEnd(res, index) / HOUR_MS - 1
end
