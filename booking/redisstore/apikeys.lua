-- The API keys made over the API, in one slot ({apikeys}): the keys are few
-- and a key's name, hash and account are checked together.
--   KEYS: names hash (name -> record), live hash (sha256 -> record),
--         claims hash (account -> {role, vo, keys}), revocations hash
--         (name -> the request that revoked its key, for retries)
-- A record is booking.KeyRecord's JSON; a revoked one has revoked_at.

-- keyClaimJoin counts a key of role and vo in account's claim, making the
-- claim if the account has none. Unless forced, a claim of another role or
-- VO refuses it, unchanged: {'CLAIMED', field, role, vo}.
local function keyClaimJoin(kc, account, role, vo, forced)
  local cur = redis.call('HGET', kc, account)
  local c = {role = role, vo = vo, keys = 0}
  if cur then
    c = cjson.decode(cur)
    if not forced then
      if c.role ~= role then return {'CLAIMED', 'role', c.role, c.vo} end
      if c.vo ~= vo then return {'CLAIMED', 'vo', c.role, c.vo} end
    end
  end
  c.keys = c.keys + 1
  redis.call('HSET', kc, account, cjson.encode(c))
  return nil
end

-- keyClaimLeave takes one key out of account's claim, which goes with its
-- last key.
local function keyClaimLeave(kc, account)
  local cur = redis.call('HGET', kc, account)
  if not cur then return end
  local c = cjson.decode(cur)
  c.keys = c.keys - 1
  if c.keys <= 0 then
    redis.call('HDEL', kc, account)
  else
    redis.call('HSET', kc, account, cjson.encode(c))
  end
end

-- keyStore stores a live key's record under its name and its hash.
local function keyStore(name, sha, rec)
  redis.call('HSET', KEYS[1], name, rec)
  redis.call('HSET', KEYS[2], sha, rec)
end

-- keyCreate: ARGV name, sha256, account, role, vo, record. {'OK'},
-- {'NAME'} (a live key has the name), or keyClaimJoin's refusal. The live
-- key of the name with the same hash is a retry: {'OK'}.
local function keyCreate()
  local cur = redis.call('HGET', KEYS[1], ARGV[1])
  if cur then
    local k = cjson.decode(cur)
    if k.revoked_at == nil then
      if k.key_sha256 == ARGV[2] then return {'OK'} end
      return {'NAME'}
    end
  end
  local refused = keyClaimJoin(KEYS[3], ARGV[3], ARGV[4], ARGV[5], false)
  if refused then return refused end
  keyStore(ARGV[1], ARGV[2], ARGV[6])
  return {'OK'}
end

-- keyRevoke: ARGV name, the revocation's time as the record writes it,
-- its request id. {'OK', record} or {'NONE'}; a key revoked by the same
-- request already is a retry.
local function keyRevoke()
  local cur = redis.call('HGET', KEYS[1], ARGV[1])
  if not cur then return {'NONE'} end
  local k = cjson.decode(cur)
  if k.revoked_at ~= nil then
    if redis.call('HGET', KEYS[4], ARGV[1]) == ARGV[3] then return {'OK', cur} end
    return {'NONE'}
  end
  k.revoked_at = ARGV[2]
  local rec = cjson.encode(k)
  redis.call('HSET', KEYS[1], ARGV[1], rec)
  redis.call('HDEL', KEYS[2], k.key_sha256)
  keyClaimLeave(KEYS[3], k.account_id)
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
  return {'OK', rec}
end

-- keyAdopt: ARGV per key: name, sha256, account, role, vo, live ('1' or
-- ''), record. Names already known are left as they are.
local function keyAdopt()
  for i = 1, #ARGV, 7 do
    if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
      if ARGV[i + 5] == '1' then
        keyClaimJoin(KEYS[3], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], true)
        keyStore(ARGV[i], ARGV[i + 1], ARGV[i + 6])
      else
        redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 6])
      end
    end
  end
  return {'OK'}
end
