-- An account's claims on its hold limits on one resource, in the
-- resource's slot (records.HoldClaims): a sorted set of the account's
-- claims scored by expiry, and a hash of their node-seconds.

-- claimCheck drops the claims that lapsed by now (scored at or before it),
-- and those whose booking record (prefix .. id, in the same slot) is
-- stored with a status other than held; a claim whose record is not stored
-- yet counts (its hold is being written), and id's own is skipped, so a
-- retry claims it once. It is nil when a claim of ns node-seconds keeps
-- within both limits, else {'OVER', id, expiry, node-seconds, ...} of the
-- claims that count.
local function claimCheck(kc, kn, now, id, ns, maxHolds, maxNs, prefix)
  local all = redis.call('ZRANGE', kc, '0', '-1', 'WITHSCORES')
  local ids, exps, gone = {}, {}, {}
  now = tonumber(now)
  for i = 1, #all, 2 do
    local x = all[i]
    if tonumber(all[i + 1]) <= now then
      gone[#gone + 1] = x -- lapsed
    elseif x ~= id then
      local held = true
      local st = redis.call('HGET', prefix .. x, 's')
      if st then
        held = st == 'held'
      else
        -- Not stored yet, or stored by a slotfare that kept no status
        -- apart (apply.lua): its record says.
        local r = redis.call('HGET', prefix .. x, 'r')
        if r then
          local ok, rec = pcall(cjson.decode, r)
          held = not ok or type(rec.booking) ~= 'table' or rec.booking.status == 'held'
        end
      end
      if held then
        ids[#ids + 1] = x; exps[#exps + 1] = all[i + 1]
      else
        gone[#gone + 1] = x
      end
    end
  end
  for i = 1, #gone, 1000 do
    local j = math.min(i + 999, #gone)
    redis.call('ZREM', kc, unpack(gone, i, j)); redis.call('HDEL', kn, unpack(gone, i, j))
  end
  local out, count, used = {}, #ids, 0
  for i = 1, #ids, 1000 do
    local have = redis.call('HMGET', kn, unpack(ids, i, math.min(i + 999, #ids)))
    for k, n in ipairs(have) do
      local x = ids[i + k - 1]
      n = tonumber(n or '0')
      used = used + n
      out[#out + 1] = x; out[#out + 1] = exps[i + k - 1]; out[#out + 1] = tostring(n)
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

