--[[
  Reads counter hashes of one API for a query (libs/store/src/read.ts) in one call, together
  with the compaction point: atomic, so the hashes and cmp are one snapshot. Variable number of
  keys; every key is in the hash slot {api}. The caller bounds the keys per call (the call
  blocks Redis while it runs).

  KEYS[1]      <p>:g<g>:{api}:cmp    string last compacted hour
  KEYS[2..]    cube hashes

  ARGV     per hash in KEYS order: number of fields F (0 = every field: HGETALL), then the F
           field names (HMGET)

  Returns  { cmp (nil = none), text 1, ..., text N }: each hash as one string
           "field value field value ..." separated by single spaces ("" = no field), with
           HMGET only the fields present. Fields and values hold no spaces. One bulk string per
           hash costs Redis and the client far less than two per field; summing in the client
           measured faster than summing here (Lua tables of many fields are slow).
]]
local out = { redis.call('GET', KEYS[1]) }
local a = 1
for k = 2, #KEYS do
  local count = tonumber(ARGV[a])
  a = a + 1
  if count == 0 then
    out[k] = table.concat(redis.call('HGETALL', KEYS[k]), ' ')
  else
    local values = redis.call('HMGET', KEYS[k], unpack(ARGV, a, a + count - 1))
    local flat = {}
    for j = 1, count do
      if values[j] then
        flat[#flat + 1] = ARGV[a + j - 1]
        flat[#flat + 1] = values[j]
      end
    end
    out[k] = table.concat(flat, ' ')
    a = a + count
  end
end
return out
