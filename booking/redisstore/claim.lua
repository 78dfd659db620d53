-- An account's claims on its hold limits on one resource, in the
-- resource's slot (records.HoldClaims): a sorted set of the account's
-- claims scored by expiry, and a hash of their node-seconds.

-- claimCheck drops the claims that lapsed by now, and those whose booking
-- record (prefix .. id, in the same slot) is stored with a status other
-- than held; a claim whose record is not stored yet counts (its hold is
-- being written), and id's own is skipped, so a retry claims it once. It is
-- nil when a claim of ns node-seconds keeps within both limits, else
-- {'OVER', id, expiry, node-seconds, ...} of the claims that count.
local function claimCheck(kc, kn, now, id, ns, maxHolds, maxNs, prefix)
  for _, x in ipairs(redis.call('ZRANGEBYSCORE', kc, '-inf', now)) do redis.call('HDEL', kn, x) end
  redis.call('ZREMRANGEBYSCORE', kc, '-inf', now)
  local all = redis.call('ZRANGE', kc, 0, -1, 'WITHSCORES')
  local out, count, used = {}, 0, 0
  for i = 1, #all, 2 do
    local x = all[i]
    if x ~= id then
      local held = true
      local r = redis.call('HGET', prefix .. x, 'r')
      if r then
        local ok, rec = pcall(cjson.decode, r)
        held = not ok or type(rec.booking) ~= 'table' or rec.booking.status == 'held'
      end
      if held then
        local n = tonumber(redis.call('HGET', kn, x) or '0')
        count, used = count + 1, used + n
        out[#out + 1] = x; out[#out + 1] = all[i + 1]; out[#out + 1] = tostring(n)
      else
        redis.call('ZREM', kc, x); redis.call('HDEL', kn, x)
      end
    end
  end
  if count + 1 > maxHolds or used + ns > maxNs then
    table.insert(out, 1, 'OVER')
    return out
  end
  return nil
end

-- claimDo records claim id until expiry exp (unix s) with ns node-seconds.
local function claimDo(kc, kn, id, exp, ns)
  redis.call('ZADD', kc, exp, id)
  redis.call('HSET', kn, id, ns)
end

