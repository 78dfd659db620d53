-- The operations, by ARGV[1].
local op = ARGV[1]
if oldLayout then return 'OLDLAYOUT' end

if op == 'ensure' then
  local want, nodes = tonumber(ARGV[2]), tonumber(ARGV[3])
  if groups then
    if groups ~= want then return 'CONFLICT' end
    return 'OK'
  end
  redis.call('HSET', KEYS[1], 'groups', want, 'layout', 2)
  for j = 0, want - 1 do
    local fz, cz = gkeys(j)
    redis.call('ZADD', fz, fmt(MIN), member(MIN, nodes))
    redis.call('ZADD', cz, fmt(MIN), member(MIN, nodes))
  end
  return 'OK'
end

if not groups then return 'NORES' end

if op == 'admit' then
  return admit(ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]))
end

-- releaseHeld gives back what booking id held (cur, its held entry).
local function releaseHeld(id, cur)
  local g, s, e, n = parseHeld(cur)
  for j = 0, g - 1 do
    local fz = gkeys(j)
    rewrite(fz, window(fz, s, e), {{s, n}}, false)
  end
  redis.call('HDEL', KEYS[2], id)
end

if op == 'release' then
  local cur = redis.call('HGET', KEYS[2], ARGV[2])
  if not cur then return 'OK' end
  releaseHeld(ARGV[2], cur)
  return 'OK'
end

if op == 'orphans' then
  -- Every booking held here that the records' live set (the last key, in
  -- this slot) does not list is released: a release that failed after
  -- the booking's change was stored. Answers their ids.
  local live, out = KEYS[#KEYS], {}
  local hs = redis.call('HGETALL', KEYS[2])
  for i = 1, #hs, 2 do
    if redis.call('SISMEMBER', live, hs[i]) == 0 then
      releaseHeld(hs[i], hs[i + 1])
      out[#out + 1] = hs[i]
    end
  end
  return out
end

if op == 'replace' then
  return replace(ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
end

if op == 'within' then return within(ARGV[2]) end

if op == 'retire' then
  -- Retired only when it holds no booking: else how many it holds.
  local n = redis.call('HLEN', KEYS[2])
  if n > 0 then return n end
  redis.call('HSET', KEYS[1], 'retired', '1')
  return 0
end

if op == 'reinstate' then
  redis.call('HDEL', KEYS[1], 'retired')
  return 0
end

-- setCapacities lays pieces out: ARGV[2], ARGV[3] are the fence (a
-- lease's name and token; token 0 for none), and from ARGV[first] on come
-- (group, start, end, nodes) per piece, applied in order: a layout's many
-- pieces in one step. Every group and the fence are checked first, so a
-- bad piece or an older token than one seen changes nothing. It answers
-- whether a stored capacity changed, or the refusal.
local function setCapacities(first)
  for i = first, #ARGV, 4 do
    if tonumber(ARGV[i]) >= groups then return 'GROUPS' end
  end
  local token = tonumber(ARGV[3])
  if token > 0 then
    local field = 'fence:' .. ARGV[2]
    local seen = tonumber(redis.call('HGET', KEYS[1], field) or '0')
    if token < seen then return {'FENCED', seen} end
    if token > seen then redis.call('HSET', KEYS[1], field, ARGV[3]) end
  end
  local changed = false
  for i = first, #ARGV, 4 do
    local j, s, e, n = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
    local fz, cz = gkeys(j)
    -- The free nodes move by the capacity's change, piece by piece.
    local cw = window(cz, s, e)
    local ds = {{s, n - cw.vs}}
    changed = changed or cw.vs ~= n
    for _, p in ipairs(cw.inner) do
      ds[#ds + 1] = {p[1], n - p[2]}
      changed = changed or p[2] ~= n
    end
    rewrite(fz, window(fz, s, e), ds, false)
    rewrite(cz, cw, {{s, n}}, true)
  end
  return changed
end

if op == 'setcap' then
  local r = setCapacities(4)
  if type(r) ~= 'boolean' then return r end
  return 'OK'
end

if op == 'publish' then
  -- setcap that publishes booking control's limits: ARGV[4] is how many
  -- events the stream keeps, ARGV[5] the event, ARGV[6] 1 to add it even
  -- if nothing changes, the pieces from ARGV[7]. KEYS end with the
  -- resource's event stream and the write's marker (WRITE_TTL s): the
  -- first step of the write that changes a capacity (or the first, when
  -- forced) adds the event with it; a retry, or a later step, finds the
  -- marker.
  local r = setCapacities(7)
  if type(r) ~= 'boolean' then return r end
  if (r or ARGV[6] == '1') and redis.call('SET', KEYS[#KEYS], '1', 'NX', 'EX', WRITE_TTL) then
    redis.call('XADD', KEYS[#KEYS - 1], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[5])
    return 'LOGGED'
  end
  return 'OK'
end

if op == 'fits' then
  local j, s, e, n = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
  if j >= groups then return 'GROUPS' end
  local fz = gkeys(j)
  if minIn(window(fz, s, e), s, e) >= n then return 1 end
  return 0
end

if op == 'nextfree' then
  local j, from, limit, d, n = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
  if j >= groups then return 'GROUPS' end
  local fz = gkeys(j)
  local t = from
  while t <= limit do
    -- The first step of [t, t+d) with too few free nodes, if any.
    local w = window(fz, t, t + d)
    local blocked = nil
    if w.vs < n then
      blocked = t
    else
      for _, p in ipairs(w.inner) do
        if p[2] < n then blocked = p[1]; break end
      end
    end
    if not blocked then return {'FOUND', fmt(t)} end
    -- Try again where that step ends.
    local nx = redis.call('ZRANGEBYSCORE', fz, '(' .. fmt(blocked), '+inf', 'LIMIT', 0, 1)
    if #nx == 0 then return {'NONE'} end
    t = parse(nx[1])
  end
  return {'NONE'}
end

if op == 'get' then
  local cur = redis.call('HGET', KEYS[2], ARGV[2])
  if not cur then return 'NOTFOUND' end
  return cur
end

return redis.error_reply('unknown inventory operation ' .. tostring(op))
