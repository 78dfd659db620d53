-- Demand records (booking.DemandRecord) of one resource, all in its slot:
--   KEYS: the index (sorted set: record suffix -> instance, unix s), the
--         write's marker (string, kept WRITE_TTL s), the version of the
--         resource's observations (records.Port's Observed)
--   ARGV: base of the records' hashes, forget (unix s; '' for none), the
--         number of records, then per record: suffix, instance (unix s),
--         resource, class, period, day, the number of counters, then
--         counter name and increment pairs.
-- demandCount adds a write's counters once and answers the version it
-- left: a write sent again after a timeout finds its marker and adds
-- nothing.
local function demandCount()
  if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', WRITE_TTL) then
    return tonumber(redis.call('GET', KEYS[3]) or '0')
  end
  local base = ARGV[1]
  local i = 4
  for _ = 1, tonumber(ARGV[3]) do
    local key = base .. ARGV[i]
    redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
    redis.call('HSET', key, 'resource', ARGV[i + 2], 'class', ARGV[i + 3], 'period', ARGV[i + 4],
      'instance', ARGV[i + 1], 'day', ARGV[i + 5])
    local n = tonumber(ARGV[i + 6])
    i = i + 7
    for _ = 1, n do
      redis.call('HINCRBY', key, ARGV[i], ARGV[i + 1])
      i = i + 2
    end
  end
  if ARGV[2] ~= '' then
    local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
    for _, m in ipairs(old) do redis.call('DEL', base .. m) end
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
  end
  return redis.call('INCR', KEYS[3])
end
