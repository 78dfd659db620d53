-- An account's claims on its hold limits on one resource, in the
-- resource's slot (records.HoldClaims): one hash, booking id ->
-- "expiry node-seconds" (unix s, integers), so that a claim is read, made
-- and dropped in one command each. (Before, a sorted set by expiry and a
-- hash of node-seconds, sf:{R}:ah:<A> and sf:{R}:ahn:<A>, which this
-- slotfare no longer reads.)

-- claimCheck drops the claims that lapsed by now (expiring at or before
-- it), and those whose booking record (prefix .. id, in the same slot) is
-- stored with a status other than held; a claim whose record is not stored
-- yet counts (its hold is being written), and id's own is skipped, so a
-- retry claims it once. It is nil when a claim of ns node-seconds keeps
-- within both limits, else {'OVER', id, expiry, node-seconds, ...} of the
-- claims that count.
local function claimCheck(kc, now, id, ns, maxHolds, maxNs, prefix)
  local all = redis.call('HGETALL', kc)
  local out, gone, count, used = {}, {}, 0, 0
  now = now + 0
  for i = 1, #all, 2 do
    local x, v = all[i], all[i + 1]
    local sp = string.find(v, ' ', 1, true)
    local exp = sp and tonumber(string.sub(v, 1, sp - 1))
    if not exp or exp <= now then
      gone[#gone + 1] = x -- lapsed (or not a claim this script wrote)
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
        local n = string.sub(v, sp + 1)
        count, used = count + 1, used + n
        out[#out + 1] = x; out[#out + 1] = string.sub(v, 1, sp - 1); out[#out + 1] = n
      else
        gone[#gone + 1] = x
      end
    end
  end
  for i = 1, #gone, 1000 do
    redis.call('HDEL', kc, unpack(gone, i, math.min(i + 999, #gone)))
  end
  if count + 1 > maxHolds or used + ns > maxNs then
    table.insert(out, 1, 'OVER')
    return out
  end
  return nil
end

-- claimDo records claim id until expiry exp (unix s) with ns node-seconds.
local function claimDo(kc, id, exp, ns)
  redis.call('HSET', kc, id, exp .. ' ' .. ns)
end
