-- The recorded runs (booking/runs) of one resource, all in its hash slot:
--   KEYS: runs hash (id -> the run's JSON), its profile's index, the
--         transfers index, the index of every run, the account's index
--         (sorted sets: id -> finished, unix ms), the account's
--         recordings of the window (sorted set: recorded:id -> recorded),
--         the adoption's place (string: an HSCAN cursor, or 'done')

-- runForget deletes run id and its index entries; the profile's and the
-- account's indexes are named from the base ARGV[9] (same slot).
local function runForget(id)
  local js = redis.call('HGET', KEYS[1], id)
  redis.call('ZREM', KEYS[4], id)
  if not js then return end
  local run = cjson.decode(js)
  local account = run.account_id
  if type(account) ~= 'string' then account = '' end
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', ARGV[9] .. ':p:' .. run.profile, id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', ARGV[9] .. ':a:' .. account, id)
end

-- runAdopt enters up to a page of the runs recorded before the indexes of
-- every run and of each account in them (their finish read from their
-- profile's index), keeping its place in KEYS[7]: the runs a step may
-- forget are indexed over the resource's first writes, each bounded.
local function runAdopt()
  local at = redis.call('GET', KEYS[7])
  if at == 'done' then return end
  if not at then
    if redis.call('HLEN', KEYS[1]) == 0 then
      redis.call('SET', KEYS[7], 'done')
      return
    end
    at = '0'
  end
  local page = redis.call('HSCAN', KEYS[1], at, 'COUNT', 256)
  local fields = page[2]
  for i = 1, #fields, 2 do
    local id = fields[i]
    if not redis.call('ZSCORE', KEYS[4], id) then
      local run = cjson.decode(fields[i + 1])
      local account = run.account_id
      if type(account) ~= 'string' then account = '' end
      local finished = redis.call('ZSCORE', ARGV[9] .. ':p:' .. run.profile, id)
      if finished then
        redis.call('ZADD', KEYS[4], finished, id)
        redis.call('ZADD', ARGV[9] .. ':a:' .. account, finished, id)
      end
    end
  end
  if page[1] == '0' then at = 'done' else at = page[1] end
  redis.call('SET', KEYS[7], at)
end

-- runAppend: ARGV id, JSON, finished, transfer ('1': it moved data),
-- recorded, per window (0: any number), kept (0: all), cutoff ('': no age
-- limit), base, window, prune batch, idle (ms; 0: none). Records the run
-- unless the hash has its id: first counts the account's recordings of the
-- window against per window; then forgets the account's earliest finished
-- beyond kept and up to a batch of the resource's finished before cutoff,
-- and sets the keys it wrote to expire after idle: the hash, written by
-- every call, outlives every index of its runs. Answers
-- {1, JSON} recorded, {0, stored JSON} the id was there, {2, recordings,
-- earliest} refused. A retry finds its run and answers 0.
local function runAppend()
  local old = redis.call('HGET', KEYS[1], ARGV[1])
  if old then return {0, old} end
  runAdopt()
  local now, perWindow, window = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[10])
  if perWindow > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - window)
    local n = redis.call('ZCARD', KEYS[6])
    if n >= perWindow then
      return {2, n, redis.call('ZRANGE', KEYS[6], 0, 0, 'WITHSCORES')[2]}
    end
    redis.call('ZADD', KEYS[6], now, ARGV[5] .. ':' .. ARGV[1])
    redis.call('PEXPIRE', KEYS[6], window)
  end
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  for _, k in ipairs({KEYS[2], KEYS[4], KEYS[5]}) do redis.call('ZADD', k, ARGV[3], ARGV[1]) end
  if ARGV[4] == '1' then redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1]) end
  local kept = tonumber(ARGV[7])
  local over = redis.call('ZCARD', KEYS[5]) - kept
  if kept > 0 and over > 0 then
    for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, over - 1)) do runForget(id) end
  end
  if ARGV[8] ~= '' then
    local past = redis.call('ZRANGE', KEYS[4], '-inf', '(' .. ARGV[8], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[11]))
    for _, id in ipairs(past) do runForget(id) end
  end
  if ARGV[12] ~= '0' then
    for _, k in ipairs({KEYS[1], KEYS[2], KEYS[4], KEYS[5], KEYS[7]}) do redis.call('PEXPIRE', k, ARGV[12]) end
    if ARGV[4] == '1' then redis.call('PEXPIRE', KEYS[3], ARGV[12]) end
  end
  return {1, ARGV[2]}
end

-- runNewest: KEYS the runs hash and an index; ARGV n. Answers the JSON of
-- the index's n newest runs, newest first.
local function runNewest()
  local ids = redis.call('ZREVRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)
  if #ids == 0 then return {} end
  return redis.call('HMGET', KEYS[1], unpack(ids))
end
