-- The co-reservation broker's records (booking/coreserve), spread over a
-- few shards; a shard's records and its due index share its hash tag, so
-- that a record and its place in the index change in one call, on a
-- server as on a cluster.
--   KEYS: record hash {v: version, r: the broker's JSON}, due index
--         (sorted set: id -> when due, unix ms)

-- coPut: ARGV replaces, version, record, due ('' out of the index), id.
-- Writes the record if its version is replaces (absent: 0) and files it;
-- answers 'ok', or the version stored. A retry of a write that was applied
-- finds its own record and answers 'ok' again.
local function coPut()
  local v = redis.call('HGET', KEYS[1], 'v') or '0'
  if v ~= ARGV[1] then
    if v == ARGV[2] and redis.call('HGET', KEYS[1], 'r') == ARGV[3] then return 'ok' end
    return v
  end
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
  if ARGV[4] == '' then
    redis.call('ZREM', KEYS[2], ARGV[5])
  else
    redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
  end
  return 'ok'
end

-- coDue: KEYS the due index and the prefix of the shard's records; ARGV
-- now, limit, claim (unix ms). Answers {id, version, record, ...} of up to
-- limit ids due by now, soonest first, and claims them: files them at
-- claim. An id without a record (none is written so) leaves the index.
local function coDue()
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
  local out = {}
  for _, id in ipairs(ids) do
    local rec = redis.call('HMGET', KEYS[2] .. id, 'v', 'r')
    if rec[1] and rec[2] then
      redis.call('ZADD', KEYS[1], ARGV[3], id)
      out[#out + 1] = id
      out[#out + 1] = rec[1]
      out[#out + 1] = rec[2]
    else
      redis.call('ZREM', KEYS[1], id)
    end
  end
  return out
end

-- coAdopt: ARGV version, record, due, id. Writes a record moved from the
-- layout before the shards, filed at due, unless it is there already.
local function coAdopt()
  if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
  redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
  return 1
end
