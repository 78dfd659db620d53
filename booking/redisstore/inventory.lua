-- slotfare inventory on Redis: the step functions of one resource's nested
-- class groups, and the bookings they hold. Every script gets the resource's
-- keys (one hash slot: they share the {resource} tag):
--   KEYS[1] meta   hash: groups
--   KEYS[2] held   hash: booking id -> "groups start end nodes"
--   then per group j: free breakpoints (zset, member = time, score = time),
--   free values (hash time -> free nodes from there to the next breakpoint),
--   capacity breakpoints, capacity values.
-- ARGV[1] is the operation; the rest are its arguments. Times are integers
-- within +-2^50, exact as Lua numbers and as scores.

local MIN = -1125899906842624

local function fmt(t) return string.format('%.0f', t) end

local function gkeys(j)
  local b = 2 + 4 * j
  return KEYS[b + 1], KEYS[b + 2], KEYS[b + 3], KEYS[b + 4]
end

-- valueAt: the step function's value at instant t.
local function valueAt(z, h, t)
  local m = redis.call('ZREVRANGEBYSCORE', z, fmt(t), '-inf', 'LIMIT', 0, 1)
  return tonumber(redis.call('HGET', h, m[1]))
end

-- minOver: the least value over [s, e).
local function minOver(z, h, s, e)
  local v = valueAt(z, h, s)
  local ms = redis.call('ZRANGEBYSCORE', z, '(' .. fmt(s), '(' .. fmt(e))
  if #ms > 0 then
    local vs = redis.call('HMGET', h, unpack(ms))
    for i = 1, #vs do
      local x = tonumber(vs[i])
      if x < v then v = x end
    end
  end
  return v
end

local function split(z, h, t)
  local m = fmt(t)
  if redis.call('ZSCORE', z, m) then return end
  local v = valueAt(z, h, t)
  redis.call('ZADD', z, m, m)
  redis.call('HSET', h, m, v)
end

-- merge drops breakpoint t when its value equals its predecessor's, so the
-- function stays canonical and small.
local function merge(z, h, t)
  local m = fmt(t)
  if not redis.call('ZSCORE', z, m) then return end
  local prev = redis.call('ZREVRANGEBYSCORE', z, '(' .. m, '-inf', 'LIMIT', 0, 1)
  if #prev == 0 then return end
  if redis.call('HGET', h, prev[1]) == redis.call('HGET', h, m) then
    redis.call('ZREM', z, m)
    redis.call('HDEL', h, m)
  end
end

local function addRange(z, h, s, e, d)
  if d == 0 then return end
  split(z, h, s)
  split(z, h, e)
  local ms = redis.call('ZRANGEBYSCORE', z, fmt(s), '(' .. fmt(e))
  for i = 1, #ms do redis.call('HINCRBY', h, ms[i], d) end
  merge(z, h, s)
  merge(z, h, e)
end

local function setRange(z, h, s, e, v)
  split(z, h, s)
  split(z, h, e)
  local ms = redis.call('ZRANGEBYSCORE', z, '(' .. fmt(s), '(' .. fmt(e))
  if #ms > 0 then
    redis.call('ZREM', z, unpack(ms))
    redis.call('HDEL', h, unpack(ms))
  end
  redis.call('HSET', h, fmt(s), v)
  merge(z, h, s)
  merge(z, h, e)
end

local function parseHeld(s)
  local g, st, en, n = string.match(s, '^(%d+) (%-?%d+) (%-?%d+) (%d+)$')
  return tonumber(g), tonumber(st), tonumber(en), tonumber(n)
end

local function heldString(g, s, e, n)
  return tostring(g) .. ' ' .. fmt(s) .. ' ' .. fmt(e) .. ' ' .. tostring(n)
end

-- growths: where terms (s, e, n) hold more than (s0, e0, n0), and by how
-- much (calendar's Replace rule).
local function growths(s0, e0, n0, s, e, n)
  local out = {}
  if s < s0 then table.insert(out, {s, math.min(e, s0), n}) end
  if e > e0 then table.insert(out, {math.max(s, e0), e, n}) end
  local a, b = math.max(s, s0), math.min(e, e0)
  if a < b and n > n0 then table.insert(out, {a, b, n - n0}) end
  return out
end

local op = ARGV[1]
local groups = tonumber(redis.call('HGET', KEYS[1], 'groups'))

if op == 'ensure' then
  local want, nodes = tonumber(ARGV[2]), tonumber(ARGV[3])
  if groups then
    if groups ~= want then return 'CONFLICT' end
    return 'OK'
  end
  redis.call('HSET', KEYS[1], 'groups', want)
  for j = 0, want - 1 do
    local fz, fv, cz, cv = gkeys(j)
    redis.call('ZADD', fz, MIN, fmt(MIN))
    redis.call('HSET', fv, fmt(MIN), nodes)
    redis.call('ZADD', cz, MIN, fmt(MIN))
    redis.call('HSET', cv, fmt(MIN), nodes)
  end
  return 'OK'
end

if not groups then return 'NORES' end

if op == 'admit' then
  local id, g = ARGV[2], tonumber(ARGV[3])
  local s, e, n = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
  if g > groups then return 'GROUPS' end
  local want = heldString(g, s, e, n)
  local cur = redis.call('HGET', KEYS[2], id)
  if cur then
    if cur == want then return 'OK' end
    return 'CONFLICT'
  end
  for j = 0, g - 1 do
    local fz, fv = gkeys(j)
    if minOver(fz, fv, s, e) < n then return 'NOCAP' end
  end
  for j = 0, g - 1 do
    local fz, fv = gkeys(j)
    addRange(fz, fv, s, e, -n)
  end
  redis.call('HSET', KEYS[2], id, want)
  return 'OK'
end

if op == 'release' then
  local cur = redis.call('HGET', KEYS[2], ARGV[2])
  if not cur then return 'OK' end
  local g, s, e, n = parseHeld(cur)
  for j = 0, g - 1 do
    local fz, fv = gkeys(j)
    addRange(fz, fv, s, e, n)
  end
  redis.call('HDEL', KEYS[2], ARGV[2])
  return 'OK'
end

if op == 'replace' then
  local id = ARGV[2]
  local s, e, n = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
  local cur = redis.call('HGET', KEYS[2], id)
  if not cur then return 'NOTFOUND' end
  local g, s0, e0, n0 = parseHeld(cur)
  local gr = growths(s0, e0, n0, s, e, n)
  for j = 0, g - 1 do
    local fz, fv = gkeys(j)
    for _, p in ipairs(gr) do
      if minOver(fz, fv, p[1], p[2]) < p[3] then return 'NOCAP' end
    end
  end
  for j = 0, g - 1 do
    local fz, fv = gkeys(j)
    addRange(fz, fv, s0, e0, n0)
    addRange(fz, fv, s, e, -n)
  end
  redis.call('HSET', KEYS[2], id, heldString(g, s, e, n))
  return 'OK'
end

if op == 'within' then
  local cur = redis.call('HGET', KEYS[2], ARGV[2])
  if not cur then return 'NOTFOUND' end
  local g, s, e = parseHeld(cur)
  for j = 0, g - 1 do
    local fz, fv = gkeys(j)
    if minOver(fz, fv, s, e) < 0 then return 0 end
  end
  return 1
end

if op == 'setcap' then
  local j, s, e, n = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
  if j >= groups then return 'GROUPS' end
  local fz, fv, cz, cv = gkeys(j)
  -- The capacity's pieces over [s, e): the free nodes move by the change.
  local pts = {s}
  local ms = redis.call('ZRANGEBYSCORE', cz, '(' .. fmt(s), '(' .. fmt(e))
  for i = 1, #ms do table.insert(pts, tonumber(ms[i])) end
  table.insert(pts, e)
  for i = 1, #pts - 1 do
    local c = valueAt(cz, cv, pts[i])
    addRange(fz, fv, pts[i], pts[i + 1], n - c)
  end
  setRange(cz, cv, s, e, n)
  return 'OK'
end

if op == 'fits' then
  local j, s, e, n = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
  if j >= groups then return 'GROUPS' end
  local fz, fv = gkeys(j)
  if minOver(fz, fv, s, e) >= n then return 1 end
  return 0
end

if op == 'nextfree' then
  local j, from, limit, d, n = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
  if j >= groups then return 'GROUPS' end
  local fz, fv = gkeys(j)
  local t = from
  while t <= limit do
    -- The first step of [t, t+d) with too few free nodes, if any.
    local blocked = nil
    if valueAt(fz, fv, t) < n then
      blocked = t
    else
      local ms = redis.call('ZRANGEBYSCORE', fz, '(' .. fmt(t), '(' .. fmt(t + d))
      if #ms > 0 then
        local vs = redis.call('HMGET', fv, unpack(ms))
        for i = 1, #vs do
          if tonumber(vs[i]) < n then blocked = tonumber(ms[i]); break end
        end
      end
    end
    if not blocked then return {'FOUND', fmt(t)} end
    -- Try again where that step ends.
    local nx = redis.call('ZRANGEBYSCORE', fz, '(' .. fmt(blocked), '+inf', 'LIMIT', 0, 1)
    if #nx == 0 then return {'NONE'} end
    t = tonumber(nx[1])
  end
  return {'NONE'}
end

if op == 'profile' then
  local j, s, e = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
  if j >= groups then return 'GROUPS' end
  local fz, fv = gkeys(j)
  local out = {fmt(s), tostring(valueAt(fz, fv, s))}
  local ms = redis.call('ZRANGEBYSCORE', fz, '(' .. fmt(s), '(' .. fmt(e))
  if #ms > 0 then
    local vs = redis.call('HMGET', fv, unpack(ms))
    for i = 1, #ms do
      table.insert(out, ms[i])
      table.insert(out, vs[i])
    end
  end
  return out
end

if op == 'get' then
  local cur = redis.call('HGET', KEYS[2], ARGV[2])
  if not cur then return 'NOTFOUND' end
  return cur
end

return redis.error_reply('unknown inventory operation ' .. tostring(op))
