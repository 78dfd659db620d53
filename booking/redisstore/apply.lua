-- slotfare's write of booking records, in its resource's hash slot: every
-- version checked and every posting id checked before anything is written.
-- A posting of a booking is appended to the booking's own log as well, in
-- the same slot, so that a booking's record and postings read in one step.
-- Every booking changed is indexed in the resource's history (a sorted set
-- of list keys, all scores 0, read in lexical order) in the same step: a
-- refused write indexes nothing, and a retried one adds the member it added
-- already. The record hash keeps its key ('k'), so that a change of
-- created_at moves its member, never adds a second one.
--
-- The write's keys start at KEYS[ko + 1] and its arguments at ARGV[ao + 1]
-- (another step of the slot, an admission, may come first):
--   KEYS: write marker (its name), live set, posted set, posting log, history, due
--         set, change log, change counter, event stream, running set,
--         running nodes, then one record hash per change, then one posting
--         log per booking posted for
--   ARGV: number of changes, number of postings, the bookings the change
--         log keeps, the events the stream keeps, then per change (CHANGE
--         arguments) id, replaces, holding (1/0), record, list key, due
--         time ('' when not holding: records.DueAt), status, the version
--         it stores (replaces + 1), its event, its nodes;
--         then per posting id, posting, the index among the write's
--         keys of its booking's log (0 for none), and its two events
--         (posting.created, invoice.updated);
--         then, on one server, the write's index (applyIndex), if any
-- On one server a script may touch keys of any slot, so the write's index
-- under its (first) account follows it in the same script, once it is
-- applied: its keys and arguments come last (applyIndex). A refused write
-- indexes nothing, and an applied one is indexed in the same step.
-- A record hash keeps the booking's status apart ('s') as well, so that a
-- script reads it without decoding the record (claim.lua), and whether the
-- live set lists it ('l', 1/0), so that a change that keeps it there (a
-- commit) does not add it again.
-- The live set holds the bookings holding capacity, the due set the same
-- bookings scored by when the ticker must next look at them. The running
-- set holds the active ones scored by their end (their due time), and the
-- running nodes hash their nodes, so that the nodes in use at an instant
-- are read without reading a record (running.lua).
-- The change log is a sorted set of the bookings changed, scored by the
-- sequence number of their newest change (the counter's 'seq'), so that
-- the lease holder reads what changed since its cursor, each booking once;
-- it keeps the newest so many bookings, and the counter's 'floor' says up
-- to which number it was trimmed (records.ChangePage's Lost).
-- The event stream is the resource's event log (booking/events): the
-- write's events, made by records.EventsOf, are added in this step, so an
-- event is there exactly when its change is; the stream keeps about so
-- many events (XADD MAXLEN ~).

-- A write's marker says it is applied. A write that changes bookings keeps
-- it in its first booking's record hash, as a field named as the marker key
-- (KEYS[ko + 1]), for as long as the record: no key of its own, and read in
-- the same HMGET as the record's version. A write of postings alone keeps
-- the marker key, which Redis keeps for WRITE_TTL seconds.

-- applyCheck is nil when the write may be applied, else the answer: DONE
-- (applied already: its marker is there), MOVED (a booking's version is
-- not the one its change replaces) or POSTED (a posting id is stored). It
-- also answers, per change, what its record stores of the indexes
-- ({list key, in the live set, maybe in the running set}, false when not
-- stored), for applyDo.
local CHANGE, POSTING, REC = 10, 5, 11

-- changeAt is where change i's arguments start; postingsAt where the
-- postings' start, and the end of the write's arguments, given n, the
-- number of changes (ARGV[ao + 1], made a number once by its caller).
-- REC is where the record hashes' keys start, past the fixed keys.
local function changeAt(ao, i) return ao + 5 + (i - 1) * CHANGE end
local function postingsAt(ao, n)
  local p = ao + 5 + n * CHANGE
  return p, p + POSTING * ARGV[ao + 2]
end

-- logEvent adds one event to the resource's stream (KEYS[ko + 9]).
local function logEvent(ko, ao, e)
  redis.call('XADD', KEYS[ko + 9], 'MAXLEN', '~', ARGV[ao + 4], '*', 'e', e)
end

local function applyCheck(ko, ao)
  local n = ARGV[ao + 1] + 0
  if n == 0 and redis.call('EXISTS', KEYS[ko + 1]) == 1 then return {'DONE'} end
  local lks = {}
  for i = 1, n do
    local a = changeAt(ao, i)
    local fs = {'v', 'k', 'l', 's'}
    if i == 1 then fs[5] = KEYS[ko + 1] end -- the write's marker
    local h = redis.call('HMGET', KEYS[ko + REC + i], unpack(fs))
    if h[5] then return {'DONE'} end
    -- Versions are compared and stored as the decimal strings they are:
    -- no conversion to a Lua number and back.
    local have = h[1] or '0'
    if have ~= ARGV[a + 1] then return {'MOVED', ARGV[a], have} end
    -- A record stored without its status apart (an earlier slotfare's)
    -- may be active.
    lks[i] = {h[2], h[3], h[4] == 'active' or (h[1] and not h[4])}
  end
  local p, pe = postingsAt(ao, n)
  for j = p, pe - 1, POSTING do
    if redis.call('SISMEMBER', KEYS[ko + 3], ARGV[j]) == 1 then return {'POSTED', ARGV[j]} end
  end
  return nil, lks
end

-- applyIndex indexes an applied write under its first account, from
-- ARGV[ai] on (apply.lua; one server only): ik, where the index's keys
-- start (KEYS[ik + 1]), np, the resource, then accountIndex's arguments;
-- KEYS: np booking pointers, then accountIndex's. The pointers map the
-- write's bookings to their resource.
-- indexed[i] is true when change i's booking was stored before with the
-- list key it keeps, and skip holds those list keys: the booking's pointer
-- and its member in the account's list were set then, in the same step as
-- its record (this function), so they are not set again.
local function applyIndex(ai, indexed, skip)
  local ik, np = ARGV[ai] + 0, ARGV[ai + 1] + 0
  for i = 1, np do
    if not indexed[i] then redis.call('SET', KEYS[ik + i], ARGV[ai + 2]) end
  end
  return accountIndex(ik + np, ai + 2, skip)
end

-- logChanges adds the write's n bookings to the change log (KEYS[ko + 7])
-- at the counter's next numbers (KEYS[ko + 8]), and trims the log to the
-- newest keep bookings once it holds a sixteenth more, noting the newest
-- number trimmed. Its size is looked at once every sixteenth of keep
-- changes, not on every write.
local function logChanges(ko, ao, n)
  local last = redis.call('HINCRBY', KEYS[ko + 8], 'seq', n)
  local zs = {}
  for i = 1, n do
    zs[#zs + 1] = last - n + i
    zs[#zs + 1] = ARGV[changeAt(ao, i)]
  end
  redis.call('ZADD', KEYS[ko + 7], unpack(zs))
  local keep = ARGV[ao + 3] + 0
  local step = math.max(1, math.floor(keep / 16))
  if math.floor(last / step) == math.floor((last - n) / step) then return end
  local size = redis.call('ZCARD', KEYS[ko + 7])
  if size > keep + math.floor(keep / 16) then
    local cut = size - keep
    local top = redis.call('ZRANGE', KEYS[ko + 7], cut - 1, cut - 1, 'WITHSCORES')
    redis.call('ZREMRANGEBYRANK', KEYS[ko + 7], 0, cut - 1)
    redis.call('HSET', KEYS[ko + 8], 'floor', top[2])
  end
end

-- applyDo writes what applyCheck let through (lks what the records stored
-- of the indexes), and the write's marker, then the write's index if it
-- has one (applyIndex).
local function applyDo(ko, ao, ttl, lks)
  local n = ARGV[ao + 1] + 0
  local indexed, skip = {}, {}
  for i = 1, n do
    local a = changeAt(ao, i)
    local rec, lk, holding = KEYS[ko + REC + i], ARGV[a + 4], ARGV[a + 2]
    local old, wasLive = lks[i][1], lks[i][2]
    if old and old ~= lk then redis.call('ZREM', KEYS[ko + 5], old) end
    local fv = {'v', ARGV[a + 7], 'r', ARGV[a + 3], 'k', lk, 's', ARGV[a + 6], 'l', holding}
    if i == 1 then fv[11], fv[12] = KEYS[ko + 1], '1' end -- the write's marker
    redis.call('HSET', rec, unpack(fv))
    -- The history and the live set change with the record, in this step,
    -- so a record that keeps its list key is in the history already, and
    -- one that says whether it is live ('l') says it rightly.
    indexed[i] = old == lk
    if indexed[i] then skip[lk] = true else redis.call('ZADD', KEYS[ko + 5], '0', lk) end
    if wasLive ~= holding then
      if holding == '1' then redis.call('SADD', KEYS[ko + 2], ARGV[a]) else redis.call('SREM', KEYS[ko + 2], ARGV[a]) end
    end
    if ARGV[a + 5] ~= '' then redis.call('ZADD', KEYS[ko + 6], ARGV[a + 5], ARGV[a]) else redis.call('ZREM', KEYS[ko + 6], ARGV[a]) end
    if ARGV[a + 6] == 'active' then
      redis.call('ZADD', KEYS[ko + 10], ARGV[a + 5], ARGV[a])
      redis.call('HSET', KEYS[ko + 11], ARGV[a], ARGV[a + 9])
    elseif lks[i][3] then
      redis.call('ZREM', KEYS[ko + 10], ARGV[a])
      redis.call('HDEL', KEYS[ko + 11], ARGV[a])
    end
    logEvent(ko, ao, ARGV[a + 8])
  end
  if n > 0 then logChanges(ko, ao, n) end
  local p, pe = postingsAt(ao, n)
  for j = p, pe - 1, POSTING do
    redis.call('SADD', KEYS[ko + 3], ARGV[j])
    redis.call('RPUSH', KEYS[ko + 4], ARGV[j + 1])
    local k = ARGV[j + 2] + 0
    if k > 0 then redis.call('RPUSH', KEYS[ko + k], ARGV[j + 1]) end
    logEvent(ko, ao, ARGV[j + 3])
    logEvent(ko, ao, ARGV[j + 4])
  end
  if n == 0 then redis.call('SET', KEYS[ko + 1], '1', 'EX', ttl) end
  if pe <= #ARGV then applyIndex(pe, indexed, skip) end
end
