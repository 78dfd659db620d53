-- The nodes in use on a resource at an instant (records.Port's Running),
-- in its slot: the running set (active bookings scored by their end, as
-- apply.lua keeps it) read past the instant, their nodes summed from the
-- running nodes hash. No record is read.
--   KEYS: running set, running nodes, live set, due set, the marker that
--         the running set was made from the live set
--   ARGV: the instant (unix s), the prefix of the resource's record hashes
-- A resource stored by a slotfare that kept no running set has its active
-- bookings only in the live set: the first call makes the set from it, in
-- the same step, then marks it made.
-- runningFromLive puts the active bookings of the live set (KEYS[3]) in
-- the running set and hash, each scored by its due time (KEYS[4]), which
-- is its end; one stored before the due set existed counts as running
-- until its next write. A record that keeps no status apart says it in
-- its JSON.
local function runningFromLive(prefix)
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[3])) do
    local h = redis.call('HMGET', prefix .. id, 's', 'r')
    if (h[1] == 'active' or not h[1]) and h[2] then
      local ok, rec = pcall(cjson.decode, h[2])
      if ok and type(rec.booking) == 'table' and rec.booking.status == 'active' then
        local ends = redis.call('ZSCORE', KEYS[4], id) or '+inf'
        redis.call('ZADD', KEYS[1], ends, id)
        redis.call('HSET', KEYS[2], id, tostring(rec.booking.nodes or 0))
      end
    end
  end
end

local function runningNodes()
  if redis.call('EXISTS', KEYS[5]) == 0 then
    runningFromLive(ARGV[2])
    redis.call('SET', KEYS[5], '1')
  end
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')
  local sum = 0
  for i = 1, #ids, 1000 do
    local ns = redis.call('HMGET', KEYS[2], unpack(ids, i, math.min(i + 999, #ids)))
    for _, n in ipairs(ns) do sum = sum + (tonumber(n) or 0) end
  end
  return sum
end
