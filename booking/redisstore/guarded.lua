-- An admission, a check of the limits or a move of a booking to new
-- terms, and the write that rests on it, in one step of the resource's
-- slot: the inventory's keys first, then (for a hold) the account's
-- claims, then the write's (ARGV[2] is where the write's start). All
-- happen or none: a write already applied (its marker) answers DONE, a
-- write whose booking moved or whose posting is stored changes nothing, a
-- hold past its account's hold limits answers OVER (claim.lua), and a
-- refused admission or move writes nothing. The layout's keys are those of
-- the groups the booking occupies (or all): KEYS (an answer) when it
-- occupies more.
--   admitapply: ARGV op, ko, id, groups, start, end, nodes, now, expiry,
--               node-seconds, max holds, max node-seconds, record prefix,
--               keyed (1/0), fingerprint, key ttl (ms), then the
--               write's; KEYS[ko] the claims, and KEYS[ko - 1] the hold's
--               Idempotency-Key when keyed (one server only: the key is in
--               its account's slot)
--   withinapply: ARGV op, ko, id, then the write's
--   replaceapply: ARGV op, ko, id, start, end, nodes, then the write's
local op, ko = ARGV[1], ARGV[2] + 0
if oldLayout then return {'OLDLAYOUT'} end
if not groups then return {'NORES'} end
if op == 'admitapply' then
  NINV = ko - 1
  if ARGV[14] == '1' then NINV = ko - 2 end
  local r, lks = applyCheck(ko, 16)
  if r then return r end
  -- The hold's Idempotency-Key (idem.go's hash): free, it lets the hold
  -- through; made with the same request, it names the booking made;
  -- another request's, or one still running, it stops it.
  local ik, fp = 0, ARGV[15]
  if ARGV[14] == '1' then
    ik = ko - 1
    local cur = redis.call('HGET', KEYS[ik], 'fp')
    if cur then
      if cur ~= fp then return {'KEY', 'mismatch'} end
      local res = redis.call('HGET', KEYS[ik], 'result')
      if res then return {'KEY', 'done', res} end
      return {'KEY', 'pending'}
    end
  end
  local kc = KEYS[ko]
  r = claimCheck(kc, ARGV[8], ARGV[3], ARGV[10] + 0, ARGV[11] + 0, ARGV[12] + 0, ARGV[13])
  if r then return r end
  local a = admit(ARGV[3], ARGV[4] + 0, ARGV[5] + 0, ARGV[6] + 0, ARGV[7] + 0)
  if a ~= 'OK' then return {a} end
  claimDo(kc, ARGV[3], ARGV[9], ARGV[10])
  applyDo(ko, 16, WRITE_TTL, lks)
  if ik > 0 then
    redis.call('HSET', KEYS[ik], 'fp', fp, 'result', ARGV[3])
    redis.call('PEXPIRE', KEYS[ik], ARGV[16])
  end
  return {'OK'}
end
if op == 'withinapply' then
  NINV = ko
  local r, lks = applyCheck(ko, 3)
  if r then return r end
  local w = within(ARGV[3])
  if w == 'NOTFOUND' or w == 'KEYS' then return {w} end
  if w == 0 then return {'NOTWITHIN'} end
  applyDo(ko, 3, WRITE_TTL, lks)
  return {'OK'}
end
if op == 'replaceapply' then
  -- The write is checked first, so that a step run again (its answer
  -- lost) finds its marker and moves nothing twice.
  NINV = ko
  local r, lks = applyCheck(ko, 6)
  if r then return r end
  local m = replace(ARGV[3], ARGV[4] + 0, ARGV[5] + 0, ARGV[6] + 0)
  if m ~= 'OK' then return {m} end
  applyDo(ko, 6, WRITE_TTL, lks)
  return {'OK'}
end
return redis.error_reply('unknown guarded operation ' .. tostring(op))
