-- slotfare inventory on Redis: the step functions of one resource's nested
-- class groups, and the bookings they hold. Every operation gets the resource's
-- keys (one hash slot: they share the {resource} tag):
--   KEYS[1] meta   hash: groups, layout (2: this layout), retired (1),
--                  fence:<lease> (the newest fencing token a capacity
--                  write carried under that lease)
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

-- fmt formats an integral number as an integer: '%d' takes C's integer
-- path, several times cheaper than a float's '%.0f' or tostring's '%.14g'
-- (Lua 5.1 formats it as a C long, 64 bits here), and exact within +-2^50.
local function fmt(t) return string.format('%d', t) end

local function member(t, v) return fmt(t) .. ':' .. fmt(v) end

-- A numeric string this script or slotfare wrote is made a number by
-- arithmetic (s + 0), which parses it once, where tonumber parses it twice
-- (Lua 5.1 checks that it is a number, then converts it).
local function parse(m)
  local c = string.find(m, ':', 2, true)
  return string.sub(m, 1, c - 1) + 0, string.sub(m, c + 1) + 0
end

local function gkeys(j)
  local b = 2 + 2 * j
  return KEYS[b + 1], KEYS[b + 2]
end

-- windowApart reads window (z, s, e) (see window) in two reads: the two
-- breakpoints at or before s, then those in (s, e].
local function windowApart(z, s, e)
  local w = {s = s, e = e, members = {}, inner = {}}
  local fs = fmt(s)
  local pre = redis.call('ZREVRANGEBYSCORE', z, fs, '-inf', 'LIMIT', '0', '2')
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
  local ms = redis.call('ZRANGEBYSCORE', z, '(' .. fs, fmt(e))
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

-- WINDOW is how many breakpoints window reads at once: a window that needs
-- more (those in (s, e], the one at or before s, and when that one is at s
-- the one before it) is read apart (windowApart).
local WINDOW = 3

-- window reads the function z over [s, e): its value at s (vs), the value
-- just before s (prev; nil when s is the first breakpoint), its
-- breakpoints inside (s, e) (inner, {time, value} in order), its value at e
-- (ve), and the members stored at times in [s, e] (members), so that
-- rewrite can replace them. One read, from e back, covers most windows: it
-- holds those in (s, e], the one at or before s, and the one before that.
local function window(z, s, e)
  local rs = redis.call('ZREVRANGEBYSCORE', z, fmt(e), '-inf', 'LIMIT', '0', WINDOW)
  local n, i, ts, vs = #rs, 1, {}, {}
  while i <= n do
    ts[i], vs[i] = parse(rs[i])
    if ts[i] <= s then break end
    i = i + 1
  end
  -- rs[i] is at or before s; when it is at s, the one after it (before s)
  -- is prev, and a read cut short by WINDOW may have left it out.
  if i > n or (ts[i] == s and i == n and n == WINDOW) then return windowApart(z, s, e) end
  local w = {s = s, e = e, members = {}, inner = {}, vs = vs[i]}
  if ts[i] == s then
    w.members[1] = rs[i]
    if i < n then
      local _, v2 = parse(rs[i + 1])
      w.prev = v2
    end
  else
    w.prev = vs[i]
  end
  w.ve = vs[i]
  for j = i - 1, 1, -1 do
    w.members[#w.members + 1] = rs[j]
    w.ve = vs[j]
    if ts[j] ~= e then w.inner[#w.inner + 1] = {ts[j], vs[j]} end
  end
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
  -- Each new breakpoint's time and member are formatted once.
  local want, ts, ms = {}, {}, {}
  for i, p in ipairs(new) do
    ts[i] = fmt(p[1])
    ms[i] = ts[i] .. ':' .. fmt(p[2])
    want[ms[i]] = true
  end
  local rem = {}
  for _, m in ipairs(w.members) do
    if want[m] then want[m] = nil else rem[#rem + 1] = m end
  end
  local add = {}
  for i, m in ipairs(ms) do
    if want[m] then
      add[#add + 1] = ts[i]
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
  local a = string.find(s, ' ', 1, true)
  local b = string.find(s, ' ', a + 1, true)
  local c = string.find(s, ' ', b + 1, true)
  return string.sub(s, 1, a - 1) + 0, string.sub(s, a + 1, b - 1) + 0, string.sub(s, b + 1, c - 1) + 0, string.sub(s, c + 1) + 0
end

local function heldString(g, s, e, n)
  return fmt(g) .. ' ' .. fmt(s) .. ' ' .. fmt(e) .. ' ' .. fmt(n)
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

-- The resource's layout, as readLayout found it at the start of this
-- call: its number of groups (nil when not laid out), whether it is this
-- layout, and whether the resource is retired (the 'retire' operation):
-- then nothing is admitted on it.
-- NINV is how many of KEYS are the layout's (meta, held, then two per
-- group). A guarded step is given only the groups its booking occupies
-- and says so (guarded.lua); every other operation is given them all. A
-- step that needs a group beyond them answers 'KEYS' before it writes.
local groups, oldLayout, retired, NINV

-- readLayout reads the layout of the resource whose keys the call got.
-- Every call of an inventory operation or a guarded step starts with it:
-- the library's functions outlive a call (library.go).
local function readLayout()
  local meta = redis.call('HMGET', KEYS[1], 'groups', 'layout', 'retired')
  groups = tonumber(meta[1])
  oldLayout = groups and meta[2] ~= '2'
  retired = meta[3] == '1'
  NINV = #KEYS
end

-- admit puts booking id on groups 0..g-1 over [s, e) with n nodes if it
-- fits on every one: 'OK', 'NOCAP', 'CONFLICT' (held with other terms),
-- 'GROUPS' or 'RETIRED'. An id held with these terms is 'OK'.
local function admit(id, g, s, e, n)
  if retired then return 'RETIRED' end
  if g > groups then return 'GROUPS' end
  if 2 + 2 * g > NINV then return 'KEYS' end
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

-- within is 1 when booking id is within the capacities on every group it
-- occupies, 0 when not, 'NOTFOUND' when it is not held.
local function within(id)
  local cur = redis.call('HGET', KEYS[2], id)
  if not cur then return 'NOTFOUND' end
  local g, s, e = parseHeld(cur)
  if 2 + 2 * g > NINV then return 'KEYS' end
  for j = 0, g - 1 do
    local fz = gkeys(j)
    if minIn(window(fz, s, e), s, e) < 0 then return 0 end
  end
  return 1
end


-- replace moves booking id to [s, e) with n nodes on every group it
-- occupies if the new terms fit where they hold more than the old
-- (growths): 'OK', 'NOCAP' (nothing changed), 'NOTFOUND' (not held), or
-- 'KEYS' (it occupies groups whose keys the call was not given).
local function replace(id, s, e, n)
  local cur = redis.call('HGET', KEYS[2], id)
  if not cur then return 'NOTFOUND' end
  local g, s0, e0, n0 = parseHeld(cur)
  if 2 + 2 * g > NINV then return 'KEYS' end
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
