--[[
  Writes off[api] of one partition again, unchanged, when it holds the offset the writer relies on: the
  replica wait's write (pipeline.ts ReplicaWait, watermark.ts confirmOffsets). A WAIT right after it on the
  API's master is acknowledged only by replicas that hold every earlier write of that master, the batch the
  offset stands for included (replication is ordered). A plain WAIT would not do: Redis counts
  acknowledgements of the connection's last replicated write, a command that changes nothing is not
  replicated, and a connection that wrote nothing since it was opened gets every replica's acknowledgement
  at once. HSET is replicated even when the value is the same.

  KEYS[1]  <p>:g<g>:{api}:off   hash "<topic>/<partition>" -> off[api]

  ARGV[1]  field "<topic>/<partition>"
  ARGV[2]  the off[api] the writer found applied (never none)

  Returns  {1}            written again
           {0, actual}    off[api] is not ARGV[2] (actual, -1 = none; a failover lost writes, or another
                          worker owns the partition): nothing written.
]]
local actual = redis.call('HGET', KEYS[1], ARGV[1]) or '-1'
if actual ~= ARGV[2] then
  return { 0, actual }
end
redis.call('HSET', KEYS[1], ARGV[1], actual)
return { 1 }
