-- An admission, or a check of the limits, and the write that rests on it,
-- in one step of the resource's slot: the inventory's keys first, then the
-- write's (ARGV[2] is how many of KEYS are the inventory's). Both happen
-- or neither: a write already applied (its marker) answers DONE, a write
-- whose booking moved or whose posting is stored changes nothing, and a
-- refused admission writes nothing.
--   admitapply: ARGV op, ko, id, groups, start, end, nodes, then the write's
--   withinapply: ARGV op, ko, id, then the write's
local op, ko = ARGV[1], tonumber(ARGV[2])
if oldLayout then return {'OLDLAYOUT'} end
if not groups then return {'NORES'} end
if op == 'admitapply' then
  local r = applyCheck(ko, 7)
  if r then return r end
  local a = admit(ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]))
  if a ~= 'OK' then return {a} end
  applyDo(ko, 7, WRITE_TTL)
  return {'OK'}
end
if op == 'withinapply' then
  local r = applyCheck(ko, 3)
  if r then return r end
  local w = within(ARGV[3])
  if w == 'NOTFOUND' then return {'NOTFOUND'} end
  if w == 0 then return {'NOTWITHIN'} end
  applyDo(ko, 3, WRITE_TTL)
  return {'OK'}
end
return redis.error_reply('unknown guarded operation ' .. tostring(op))
