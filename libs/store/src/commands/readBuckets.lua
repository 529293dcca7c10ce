--[[
  Reads the counters of some buckets of one API for a query (libs/store/src/read.ts, docs/store-v2.md
  "Reading") in one call, together with the compaction point: atomic, so sections, sealing hashes,
  delta hashes and cmp are one snapshot (a count is in exactly one of them at any instant). Variable
  number of keys; every key is in the hash slot {api}. The caller bounds the work per call (the call
  blocks Redis while it runs): no field is summed here, each value is returned as one string.

  KEYS[1]      <p>:g<g>:{api}:cmp    string last compacted hour
  KEYS[2..]    the keys of the items below, in item order

  ARGV     a sequence of items, each a letter and its arguments:
    S v           KEYS: one section string (<b>:S:<c>). v = the 8 version bytes the caller holds
                  ("" = none). Reply: nil = no section; 1 = the section's version bytes are v
                  (GETRANGE key 4 11: unchanged, the caller uses its copy); else the whole string.
    X v           As S, with KEYS: the x section, then the f section of the bucket: the f section is
                  read where the x section is absent (a reader of x sums any section with identity
                  and key columns).
    F n f1..fn    Defines field list number j (the j-th F of the call) for H items. No reply.
    G n           KEYS: <b>:parts, <b>:zparts. When neither exists the bucket has no delta and no
                  sealing hash or list (a sealed bucket without late events): the n H, P or L items
                  that follow are answered without reading them (H: "", P and L: an empty list).
                  No reply of its own.
    H j           KEYS: one hash (<b>:<suffix> or <b>:z:<suffix>). j = 0: every field (HGETALL),
                  else HMGET of the fields of list j. Reply: "field value field value ..." ("" =
                  none), with HMGET only the fields present. Fields and values hold no spaces.
    P root c j b  KEYS: <b>:parts, <b>:zparts, <p>:g<g>:{api}:seq. Every hash of cube c listed in
                  either set (members "c" or "c:<part>"), of the parts in list j only when j > 0 (an
                  F list), read with HGETALL from root .. member (delta) and root .. "z:" .. member
                  (being sealed); root is "<b>:". When a set has more members than the list, the
                  listed parts are read by name instead (an absent hash reads as none), so a set
                  listing thousands of f parts is not walked. b bounds the work: each hash costs 8
                  plus its field count (HLEN, O(1)); once b is spent, the hashes left are not read
                  but named in the reply, for C items of later calls (the first hash is always read).
                  Reply: { rest, guard, member, text, member, text, ... } for the hashes read that
                  hold fields; rest = the names ("member" or "z:member") left unread ({} = none);
                  guard = "<seq>/<1 if zparts exists else 0>", which a C item checks. When no list j
                  is given, the sets' parts lists of cube c per identity shard (members "L:c:<shard>",
                  docs/store-v2.md "An open hour's f as parts per identity shard") are read too, whole and
                  outside the budget: each as its member and a list of its section parts, in place of a
                  text (the caller names a query's shards as L items when it names identities).
    C g n b       KEYS: <p>:g<g>:{api}:seq, <b>:zparts, then n hashes named by a P item's rest.
                  Reply: nil when the guard now differs from g (a seal began or was committed since
                  the P item: counts may have moved between the hashes and the section, so the
                  caller reads again), else { text1, ..., textm } (HGETALL of the first m hashes,
                  "" = none): m < n when the budget b (as P's) ran out; the caller asks again for
                  the rest. Between a P item and its C items no seal of the bucket began (seq would
                  differ) and none ended (zparts would be gone), so each count is read exactly once.
    L             KEYS: a parts list <b>:L:<c> (or an identity shard's, <b>:L:f:<shard>) and its sealing
                  name (<b>:z:L:<c>). Reply: every section part of both lists ({} = none), each the
                  encoded section as stored.
    M n           KEYS: a rollup's t section (a month's, a day's), then n keys that must not exist:
                  its parts and zparts sets, and those of some of its children (days, hours), and
                  for hours the API's stage. Reply: when none of the n keys exists (neither the rollup
                  nor those children has a delta or a seal in progress), the rollup's version bytes
                  (GETRANGE 4 11), or "" when it has no t section: a rollup that holds nothing, whose
                  children (written with it) hold nothing either; else nil. Read with a rollup's
                  children (to record them) or instead of them (libs/store/src/rollup-children.ts).

    W v n root c t1..tn
                  KEYS: an hour's t section, the keys that must not exist for its minutes to be unchanged (its
                  parts and zparts sets, the API's stage). The n minute hashes of that hour are
                  root .. "n:" .. ti .. ":" .. c (keys.ts: root = <p>:g<g>:{api}:, c the cube t or f, ti the minutes;
                  spelled here: as KEYS they were most of the bytes of a minute query's command).
                  v = the hour's version bytes the caller read its copies of the n minutes with ("" = none).
                  Reply: 1 when the hour still has version v and none of those keys exists (the caller uses its
                  copies), else { g, text1, ..., textn } (HGETALL as H, "" = none), g = the hour's version when
                  none of those keys exists (the texts may be kept under it), else "". Every write to a minute
                  writes its hour too (applyApiBatch, in the same call or staged with it): the hour then has a
                  delta or a stage until a seal gives it a new version, so an unchanged version with none of
                  those keys means unchanged minutes (docs/store-v2.md "Minutes of a sealed hour").

  Returns  { cmp (nil = none), reply of item 1, reply of item 2, ... }.
  One bulk string per hash costs Redis and the client far less than two per field; a section is
  one memcpy. The P item names keys from the sets (as compactNextHour does): all share {api}.
]]
local out = { redis.call('GET', KEYS[1]) }
local k = 2
local a = 1
local lists = {}
local members = {}

local function text(key)
  return table.concat(redis.call('HGETALL', key), ' ')
end

-- What a C item checks: no seal of the bucket began (seq) or ended (zparts) since its P item.
local function guardOf(seq, zparts)
  return (redis.call('GET', seq) or '') .. '/' .. redis.call('EXISTS', zparts)
end

while a <= #ARGV do
  local kind = ARGV[a]
  if kind == 'S' or kind == 'X' then
    local held = ARGV[a + 1]
    local key = KEYS[k]
    local version = redis.call('GETRANGE', key, 4, 11)
    if kind == 'X' then
      k = k + 1
      if version == '' then
        key = KEYS[k]
        version = redis.call('GETRANGE', key, 4, 11)
      end
    end
    if version == '' then
      out[#out + 1] = false
    elseif held ~= '' and version == held then
      out[#out + 1] = 1
    else
      out[#out + 1] = redis.call('GET', key)
    end
    k = k + 1
    a = a + 2
  elseif kind == 'M' then
    local count = tonumber(ARGV[a + 1])
    a = a + 2
    if redis.call('EXISTS', unpack(KEYS, k + 1, k + count)) == 0 then
      out[#out + 1] = redis.call('GETRANGE', KEYS[k], 4, 11)
    else
      out[#out + 1] = false
    end
    k = k + 1 + count
  elseif kind == 'W' then
    local held = ARGV[a + 1]
    local count = tonumber(ARGV[a + 2])
    local root = ARGV[a + 3] .. 'n:'
    local cube = ':' .. ARGV[a + 4]
    local first = a + 5
    a = first + count
    local version = redis.call('GETRANGE', KEYS[k], 4, 11)
    if version ~= '' and redis.call('EXISTS', KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]) > 0 then
      version = ''
    end
    if version ~= '' and version == held then
      out[#out + 1] = 1
    else
      local texts = { version }
      for j = 1, count do
        texts[j + 1] = text(root .. ARGV[first + j - 1] .. cube)
      end
      out[#out + 1] = texts
    end
    k = k + 4
  elseif kind == 'F' then
    local count = tonumber(ARGV[a + 1])
    lists[#lists + 1] = { unpack(ARGV, a + 2, a + 1 + count) }
    a = a + 2 + count
  elseif kind == 'G' then
    local count = tonumber(ARGV[a + 1])
    a = a + 2
    local skip = redis.call('EXISTS', KEYS[k], KEYS[k + 1]) == 0
    k = k + 2
    if skip then
      -- Step over the guarded items: H has 1 key and 1 argument, P 2 keys and 3, L 2 keys and none.
      for _ = 1, count do
        local guarded = ARGV[a]
        if guarded == 'H' then
          out[#out + 1] = ''
          k = k + 1
          a = a + 2
        elseif guarded == 'P' then
          out[#out + 1] = {}
          k = k + 3
          a = a + 5
        elseif guarded == 'L' then
          out[#out + 1] = {}
          k = k + 2
          a = a + 1
        else
          return redis.error_reply('readBuckets: G guards ' .. tostring(guarded))
        end
      end
    end
  elseif kind == 'L' then
    local found = redis.call('LRANGE', KEYS[k], 0, -1)
    for _, section in ipairs(redis.call('LRANGE', KEYS[k + 1], 0, -1)) do
      found[#found + 1] = section
    end
    out[#out + 1] = found
    k = k + 2
    a = a + 1
  elseif kind == 'H' then
    local list = tonumber(ARGV[a + 1])
    local key = KEYS[k]
    a = a + 2
    if list == 0 then
      out[#out + 1] = text(key)
    else
      local fields = lists[list]
      local values = redis.call('HMGET', key, unpack(fields))
      local flat = {}
      for j = 1, #fields do
        if values[j] then
          flat[#flat + 1] = fields[j]
          flat[#flat + 1] = values[j]
        end
      end
      out[#out + 1] = table.concat(flat, ' ')
    end
    k = k + 1
  elseif kind == 'P' then
    local root = ARGV[a + 1]
    local cube = ARGV[a + 2]
    local list = tonumber(ARGV[a + 3])
    local budget = tonumber(ARGV[a + 4])
    a = a + 5
    local named = nil
    local allowed = nil
    local count = 0
    if list > 0 then
      local cached = members[cube .. '/' .. list]
      if not cached then
        cached = { named = {}, allowed = {} }
        for j, part in ipairs(lists[list]) do
          cached.named[j] = cube .. ':' .. part
          cached.allowed[cached.named[j]] = true
        end
        members[cube .. '/' .. list] = cached
      end
      named = cached.named
      allowed = cached.allowed
      count = #named
    end
    local prefix = cube .. ':'
    local listPrefix = 'L:' .. prefix
    local rest = {}
    local reply = { rest, guardOf(KEYS[k + 2], KEYS[k + 1]) }
    local spent = 0
    local function add(sealing, member)
      local name = sealing .. member
      if spent >= budget then
        rest[#rest + 1] = name
        return
      end
      local fields = redis.call('HLEN', root .. name)
      if fields == 0 then return end
      if spent > 0 and spent + 8 + fields > budget then
        spent = budget
        rest[#rest + 1] = name
        return
      end
      spent = spent + 8 + fields
      reply[#reply + 1] = member
      reply[#reply + 1] = text(root .. name)
    end
    for s = 0, 1 do
      local sealing = s == 1 and 'z:' or ''
      local size = redis.call('SCARD', KEYS[k + s])
      if size == 0 then
        -- no hash of this name (a sealed bucket without late events)
      elseif allowed and count < size then
        -- fewer names than members (e.g. an hour not sealed yet, whose set lists every f part)
        for _, member in ipairs(named) do add(sealing, member) end
      else
        for _, member in ipairs(redis.call('SMEMBERS', KEYS[k + s])) do
          if allowed then
            if allowed[member] then add(sealing, member) end
          elseif member == cube or string.sub(member, 1, #prefix) == prefix then
            add(sealing, member)
          elseif string.sub(member, 1, #listPrefix) == listPrefix then
            reply[#reply + 1] = member
            reply[#reply + 1] = redis.call('LRANGE', root .. sealing .. member, 0, -1)
          end
        end
      end
    end
    out[#out + 1] = reply
    k = k + 3
  elseif kind == 'C' then
    local count = tonumber(ARGV[a + 2])
    local budget = tonumber(ARGV[a + 3])
    if guardOf(KEYS[k], KEYS[k + 1]) ~= ARGV[a + 1] then
      out[#out + 1] = false
    else
      local texts = {}
      local spent = 0
      for j = 1, count do
        local key = KEYS[k + 1 + j]
        local fields = redis.call('HLEN', key)
        if j > 1 and spent + 8 + fields > budget then break end
        spent = spent + 8 + fields
        texts[j] = fields == 0 and '' or text(key)
      end
      out[#out + 1] = texts
    end
    k = k + 2 + count
    a = a + 4
  else
    return redis.error_reply('readBuckets: unknown item ' .. tostring(kind))
  end
end
return out
