--[[
  Starts one API in a new counter generation g' for a rebuild (docs/rebuild.md): copies its
  dictionaries from g (so that codes stay the same), and with a --since boundary also every
  bucket before the boundary (its sections, hashes being sealed and delta; COPY keeps the TTL) with its index entries and the compaction
  point, recording what it carried. One script: a live writer of g cannot slip an event in
  between the copy and the record of what was copied. Every key is in the API's slot {api};
  g and g' keys differ only in the generation, so they share that slot. Bucket and dictionary
  keys are derived from ARGV[1..2] exactly as keys.ts documents (apiKeys().bucketRoot).

  KEYS[1]  <p>:g<g>:{api}:off      hash  off of the old generation (copied into carry)
  KEYS[2]  <p>:g<g'>:{api}:carry   hash  "<topic>/<partition>" -> off of g at the copy; "@" = done

  ARGV[1]  old root "<p>:g<g>:{api}:"
  ARGV[2]  new root "<p>:g<g'>:{api}:"
  ARGV[3]  '1' to carry buckets before the boundary, '0' to copy the dictionaries only
  ARGV[4..6]  first hour, day, month index NOT carried (the boundary is a month start)

  Returns  {'ok', buckets}   done; buckets = buckets carried over
           {'done'}          this API was already started in g' (idempotent: resume after a crash)
           {'exists', key}   a key of g' exists already: nothing written (g' was not empty)
           {'staged'}        g has chunks staged and not applied (<old root>stage, a writer died in
                             between): nothing written; apply them (applyStagedChunk), then copy
]]
local old, new = ARGV[1], ARGV[2]
if redis.call('EXISTS', KEYS[2]) == 1 then
  return { 'done' }
end
-- The offsets copied into carry count the staged chunks as applied: the buckets must hold them.
if redis.call('EXISTS', old .. 'stage') == 1 then
  return { 'staged' }
end

local dicts = { 'dict:k', 'dict:k:ix', 'dict:i', 'dict:i:ix', 'dict:s', 'dict:s:ix' }
local fixed = { 'cmp', 'off', 'idx:h', 'idx:d', 'idx:m' }
for _, list in ipairs({ dicts, fixed }) do
  for _, suffix in ipairs(list) do
    if redis.call('EXISTS', new .. suffix) == 1 then
      return { 'exists', new .. suffix }
    end
  end
end

for _, suffix in ipairs(dicts) do
  if redis.call('EXISTS', old .. suffix) == 1 then
    redis.call('COPY', old .. suffix, new .. suffix)
  end
end

local carried = 0
if ARGV[3] == '1' then
  local bounds = { h = ARGV[4], d = ARGV[5], m = ARGV[6] }
  for _, r in ipairs({ 'h', 'd', 'm' }) do
    local indices = redis.call('ZRANGEBYSCORE', old .. 'idx:' .. r, '-inf', '(' .. bounds[r])
    for _, t in ipairs(indices) do
      local prefix = r .. ':' .. t
      -- The bucket's delta, the hashes being sealed and its sections (docs/store-v2.md); a seal in
      -- progress is copied as it stands and resumed in g' (its zparts came along).
      local copied = false
      for _, set in ipairs({ ':parts', ':zparts' }) do
        local suffixes = redis.call('SMEMBERS', old .. prefix .. set)
        local into = set == ':parts' and ':' or ':z:'
        for _, suffix in ipairs(suffixes) do
          if redis.call('EXISTS', old .. prefix .. into .. suffix) == 1 then
            redis.call('COPY', old .. prefix .. into .. suffix, new .. prefix .. into .. suffix)
          end
        end
        if #suffixes > 0 then
          redis.call('COPY', old .. prefix .. set, new .. prefix .. set)
          copied = true
        end
      end
      for _, cube in ipairs({ 't', 'k', 'i', 's', 'x', 'f' }) do
        if redis.call('COPY', old .. prefix .. ':S:' .. cube, new .. prefix .. ':S:' .. cube) == 1 then
          copied = true
        end
      end
      -- A bucket past its retention is gone although trimIndexes has not dropped its entry yet.
      if copied then
        redis.call('ZADD', new .. 'idx:' .. r, t, t)
        carried = carried + 1
      end
    end
  end
  -- Hours from the boundary on are rebuilt into empty rollups: g' must not treat them as compacted.
  local cmp = redis.call('GET', old .. 'cmp')
  if cmp then
    local last = tonumber(ARGV[4]) - 1
    redis.call('SET', new .. 'cmp', string.format('%.0f', math.min(tonumber(cmp), last)))
  end
end

local offs = redis.call('HGETALL', KEYS[1])
offs[#offs + 1] = '@'
offs[#offs + 1] = '1'
redis.call('HSET', KEYS[2], unpack(offs))
return { 'ok', carried }
