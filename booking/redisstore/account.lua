-- An applied write indexed under one account, in the account's slot: its
-- bookings' list keys, its postings (each appended once, by id), and the
-- Idempotency-Keys of its new bookings finished with their ids. Every step
-- is idempotent, so a write sent again indexes again harmlessly. A key held
-- by another request (another fingerprint, or done with another booking)
-- is left to it, as the embedded store does.
--
-- accountIndex reads its keys from KEYS[ko + 1] and its arguments from
-- ARGV[ao + 1]; it leaves out the members skip names (nil for none):
--   KEYS: bookings zset, posted set, posting log, then one key hash per key
--   ARGV: n members, members..., n postings, (id, posting)..., then per key
--         fingerprint, booking id, ttl in ms
local function accountIndex(ko, ao, skip)
  local i = ao + 1
  local n = ARGV[i] + 0; i = i + 1
  for _ = 1, n do
    if not (skip and skip[ARGV[i]]) then redis.call('ZADD', KEYS[ko + 1], '0', ARGV[i]) end
    i = i + 1
  end
  n = ARGV[i] + 0; i = i + 1
  for _ = 1, n do
    if redis.call('SADD', KEYS[ko + 2], ARGV[i]) == 1 then redis.call('RPUSH', KEYS[ko + 3], ARGV[i + 1]) end
    i = i + 2
  end
  for k = ko + 4, #KEYS do
    local fp, res = ARGV[i], ARGV[i + 1]
    local cur = redis.call('HGET', KEYS[k], 'fp')
    local have = redis.call('HGET', KEYS[k], 'result')
    if not cur or (cur == fp and (not have or have == res)) then
      redis.call('HSET', KEYS[k], 'fp', fp, 'result', res)
      redis.call('PEXPIRE', KEYS[k], ARGV[i + 2])
    end
    i = i + 3
  end
  return 1
end
