-- slotfare inventory on Redis: the step functions of one resource's nested
-- class groups, and the bookings they hold. Every script gets the resource's
-- keys (one hash slot: they share the {resource} tag):
--   KEYS[1] meta   hash: groups, layout (2: this layout)
--   KEYS[2] held   hash: booking id -> "groups start end nodes"
--   then per group j: free nodes, capacity. Each is a step function kept as
--   one sorted set of breakpoints: score = time, member = "time:value",
--   the value from that time to the next breakpoint. There is always a
--   breakpoint at MIN, and no two neighbours have one value, so a window of
--   the function is two reads and a change of it one ZREM and one ZADD.
-- ARGV[1] is the operation; the rest are its arguments. Times are integers
-- within +-2^50, exact as Lua numbers and as scores; they are always passed
-- to Redis formatted as integers (fmt), never as Lua numbers.

local MIN = -1125899906842624

local function fmt(t) return string.format('%.0f', t) end

local function member(t, v) return fmt(t) .. ':' .. fmt(v) end

local function parse(m)
  local c = string.find(m, ':', 2, true)
  return tonumber(string.sub(m, 1, c - 1)), tonumber(string.sub(m, c + 1))
end

local function gkeys(j)
  local b = 2 + 2 * j
  return KEYS[b + 1], KEYS[b + 2]
end

-- window reads the function z over [s, e): its value at s (vs), the value
-- just before s (prev; nil when s is the first breakpoint), its
-- breakpoints inside (s, e) (inner, {time, value} in order), its value at e
-- (ve), and the members stored at times in [s, e] (members), so that
-- rewrite can replace them.
local function window(z, s, e)
  local w = {s = s, e = e, members = {}, inner = {}}
  local pre = redis.call('ZREVRANGEBYSCORE', z, fmt(s), '-inf', 'LIMIT', 0, 2)
  local t1, v1 = parse(pre[1])
  w.vs = v1
  if t1 == s then
    w.members[1] = pre[1]
    if pre[2] then
      local _, v2 = parse(pre[2])
      w.prev = v2
    end
  else
    w.prev = v1
  end
  local ms = redis.call('ZRANGEBYSCORE', z, '(' .. fmt(s), fmt(e))
  local last = v1
  for i = 1, #ms do
    local t, v = parse(ms[i])
    w.members[#w.members + 1] = ms[i]
    if t == e then
      w.ve = v
    else
      w.inner[#w.inner + 1] = {t, v}
      last = v
    end
  end
  if w.ve == nil then w.ve = last end
  return w
end

-- minIn is the least value of a window over [a, b), within [s, e).
local function minIn(w, a, b)
  local v = w.vs
  for _, p in ipairs(w.inner) do
    if p[1] <= a then v = p[2] else break end
  end
  local m = v
  for _, p in ipairs(w.inner) do
    if p[1] > a and p[1] < b and p[2] < m then m = p[2] end
  end
  return m
end

local function chunked(cmd, z, xs, step)
  local n = 1000 * step
  for i = 1, #xs, n do
    redis.call(cmd, z, unpack(xs, i, math.min(i + n - 1, #xs)))
  end
end

-- rewrite replaces window w of z by the function that is, at each time of
-- [s, e), ds's value there (set) or the old value plus ds's (not set). ds
-- is a step list {time, value} in time order within [s, e), its first at s.
-- The function stays canonical, and only the members that change are
-- written.
local function rewrite(z, w, ds, set)
  local new = {}
  local cur = w.prev
  local function push(t, v)
    if v ~= cur then
      new[#new + 1] = {t, v}
      cur = v
    end
  end
  local ov, dv = w.vs, ds[1][2]
  local function val()
    if set then return dv end
    return ov + dv
  end
  push(w.s, val())
  local inner, i, j = w.inner, 1, 2
  while i <= #inner or j <= #ds do
    local ti = inner[i] and inner[i][1]
    local tj = ds[j] and ds[j][1]
    local t
    if tj == nil or (ti ~= nil and ti < tj) then
      t, ov, i = ti, inner[i][2], i + 1
    elseif ti == nil or tj < ti then
      t, dv, j = tj, ds[j][2], j + 1
    else
      t, ov, dv, i, j = ti, inner[i][2], ds[j][2], i + 1, j + 1
    end
    push(t, val())
  end
  push(w.e, w.ve)
  local want = {}
  for _, p in ipairs(new) do want[member(p[1], p[2])] = p[1] end
  local rem = {}
  for _, m in ipairs(w.members) do
    if want[m] then want[m] = nil else rem[#rem + 1] = m end
  end
  local add = {}
  for _, p in ipairs(new) do
    local m = member(p[1], p[2])
    if want[m] then
      add[#add + 1] = fmt(p[1])
      add[#add + 1] = m
    end
  end
  chunked('ZREM', z, rem, 1)
  chunked('ZADD', z, add, 2)
end

-- delta is the step list, over [a, b), of +n0 on [s0, e0) and -n on
-- [s, e) (either n may be 0): what moving a booking does to free nodes.
local function delta(a, b, s0, e0, n0, s, e, n)
  local pts = {a}
  for _, t in ipairs({s0, e0, s, e}) do
    if t > a and t < b then pts[#pts + 1] = t end
  end
  table.sort(pts)
  local out = {}
  for _, t in ipairs(pts) do
    if #out == 0 or out[#out][1] ~= t then
      local d = 0
      if t >= s0 and t < e0 then d = d + n0 end
      if t >= s and t < e then d = d - n end
      out[#out + 1] = {t, d}
    end
  end
  return out
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
local meta = redis.call('HMGET', KEYS[1], 'groups', 'layout')
local groups = tonumber(meta[1])
if groups and meta[2] ~= '2' then return 'OLDLAYOUT' end

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
  local id, g = ARGV[2], tonumber(ARGV[3])
  local s, e, n = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
  if g > groups then return 'GROUPS' end
  local want = heldString(g, s, e, n)
  local cur = redis.call('HGET', KEYS[2], id)
  if cur then
    if cur == want then return 'OK' end
    return 'CONFLICT'
  end
  local ws = {}
  for j = 0, g - 1 do
    local fz = gkeys(j)
    ws[j] = window(fz, s, e)
    if minIn(ws[j], s, e) < n then return 'NOCAP' end
  end
  for j = 0, g - 1 do
    local fz = gkeys(j)
    rewrite(fz, ws[j], {{s, -n}}, false)
  end
  redis.call('HSET', KEYS[2], id, want)
  return 'OK'
end

if op == 'release' then
  local cur = redis.call('HGET', KEYS[2], ARGV[2])
  if not cur then return 'OK' end
  local g, s, e, n = parseHeld(cur)
  for j = 0, g - 1 do
    local fz = gkeys(j)
    rewrite(fz, window(fz, s, e), {{s, n}}, false)
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
  local a, b = math.min(s, s0), math.max(e, e0)
  local gr = growths(s0, e0, n0, s, e, n)
  local ws = {}
  for j = 0, g - 1 do
    local fz = gkeys(j)
    ws[j] = window(fz, a, b)
    for _, p in ipairs(gr) do
      if minIn(ws[j], p[1], p[2]) < p[3] then return 'NOCAP' end
    end
  end
  local ds = delta(a, b, s0, e0, n0, s, e, n)
  for j = 0, g - 1 do
    local fz = gkeys(j)
    rewrite(fz, ws[j], ds, false)
  end
  redis.call('HSET', KEYS[2], id, heldString(g, s, e, n))
  return 'OK'
end

if op == 'within' then
  local cur = redis.call('HGET', KEYS[2], ARGV[2])
  if not cur then return 'NOTFOUND' end
  local g, s, e = parseHeld(cur)
  for j = 0, g - 1 do
    local fz = gkeys(j)
    if minIn(window(fz, s, e), s, e) < 0 then return 0 end
  end
  return 1
end

if op == 'setcap' then
  -- ARGV: then (group, start, end, nodes) per piece, applied in order: a
  -- layout's many pieces in one step. Every group is checked first, so a
  -- bad one changes nothing.
  for i = 2, #ARGV, 4 do
    if tonumber(ARGV[i]) >= groups then return 'GROUPS' end
  end
  for i = 2, #ARGV, 4 do
    local j, s, e, n = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
    local fz, cz = gkeys(j)
    -- The free nodes move by the capacity's change, piece by piece.
    local cw = window(cz, s, e)
    local ds = {{s, n - cw.vs}}
    for _, p in ipairs(cw.inner) do ds[#ds + 1] = {p[1], n - p[2]} end
    rewrite(fz, window(fz, s, e), ds, false)
    rewrite(cz, cw, {{s, n}}, true)
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

if op == 'profile' then
  local j, s, e = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
  if j >= groups then return 'GROUPS' end
  local fz = gkeys(j)
  local w = window(fz, s, e)
  local out = {fmt(s), fmt(w.vs)}
  for _, p in ipairs(w.inner) do
    out[#out + 1] = fmt(p[1])
    out[#out + 1] = fmt(p[2])
  end
  return out
end

if op == 'get' then
  local cur = redis.call('HGET', KEYS[2], ARGV[2])
  if not cur then return 'NOTFOUND' end
  return cur
end

return redis.error_reply('unknown inventory operation ' .. tostring(op))
