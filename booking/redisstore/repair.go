package redisstore

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/ledger"
)

// repairBatch is how many postings of a resource's log one RepairIndex
// step goes through; repairSteps bounds the steps of one call, so that a
// tick after a long outage catches up over a few ticks.
const (
	repairBatch = 512
	repairSteps = 8
)

// logSliceScript reads the resource's posting log from the repair cursor:
// the cursor, then up to ARGV[1] postings.
//
//	KEYS: posting log, repair cursor
var logSliceScript = redis.NewScript(`
local from = tonumber(redis.call('GET', KEYS[2]) or '0')
local out = redis.call('LRANGE', KEYS[1], from, from + tonumber(ARGV[1]) - 1)
table.insert(out, 1, tostring(from))
return out
`)

// repairHereScript is a repair step on one server, where a script may touch
// keys of any slot: it reads the posting log from the cursor, up to
// ARGV[1] postings, appends each to its account's postings unless the
// account's posted set has it, and moves the cursor on, in one step; it
// answers how many postings it went through. A posting's id and account
// are read from its encoding's first fields (ledger's appendJSON order:
// "id" first, then "account_id" before any free text), or decoded whole
// when a value is escaped. Plain finds read them: a pattern would be tried
// at every byte of the posting. ARGV[2] is the accounts' key prefix
// ("<prefix>:{acct:").
//
//	KEYS: posting log, repair cursor
var repairHereScript = redis.NewScript(`
-- field is the string value that follows k, found from byte i on in
-- posting p, and where it ends; nil when not there or escaped.
local function field(p, k, i)
  local a = string.find(p, k, i, true)
  if not a then return nil end
  local b = string.find(p, '"', a + #k, true)
  if not b then return nil end
  local v = string.sub(p, a + #k, b - 1)
  if string.find(v, '\\', 1, true) then return nil end
  return v, b
end
local from = tonumber(redis.call('GET', KEYS[2]) or '0')
local ps = redis.call('LRANGE', KEYS[1], from, from + tonumber(ARGV[1]) - 1)
for i, p in ipairs(ps) do
  local id, acct, e
  if string.sub(p, 1, 7) == '{"id":"' then id, e = field(p, '{"id":"', 1) end
  if id then acct = field(p, ',"account_id":"', e) end
  if not id or not acct then
    local ok, j = pcall(cjson.decode, p)
    if not ok or type(j) ~= 'table' or type(j.id) ~= 'string' or type(j.account_id) ~= 'string' then
      return redis.error_reply('a posting of the log at ' .. (from + i - 1) .. ' does not decode')
    end
    id, acct = j.id, j.account_id
  end
  local base = ARGV[2] .. acct .. '}:'
  if redis.call('SADD', base .. 'posted', id) == 1 then redis.call('RPUSH', base .. 'postings', p) end
end
if #ps > 0 then redis.call('SET', KEYS[2], from + #ps) end
return #ps
`)

// RepairIndex implements records.Port: the resource's posting log
// (sf:{R}:log, written with each write) is read from a cursor kept beside
// it (sf:{R}:logidx), its postings indexed under their accounts again by
// accountScript, which appends a posting only once, and the cursor moved
// on. Every step is idempotent, so two replicas at it, or a repair racing
// the write's own indexing, add nothing twice. On one server, where a
// write's step indexes it itself (applyIndex), each batch is one script
// (repairHereScript) that checks the postings where they are.
func (s *Records) RepairIndex(ctx context.Context, resource string) (int, error) {
	const op slotfare.Op = "redisstore.Records.RepairIndex"
	base := s.res(resource)
	done := 0
	if s.oneServer() {
		// One step per batch in Redis: no posting travels to this replica.
		for range repairSteps {
			n, err := repairHereScript.Run(ctx, s.rdb, []string{base + "log", base + "logidx"}, repairBatch, s.prefix+":{acct:").Int()
			var reply redis.Error
			if errors.As(err, &reply) && strings.Contains(reply.Error(), "does not decode") {
				return done, slotfare.E(op, slotfare.Other, "a posting of "+resource+"'s log does not decode", err)
			}
			if err != nil {
				return done, unavailable(op, err)
			}
			done += n
			if n < repairBatch {
				break
			}
		}
		return done, nil
	}
	for range repairSteps {
		out, err := logSliceScript.Run(ctx, s.rdb, []string{base + "log", base + "logidx"}, repairBatch).StringSlice()
		if err != nil {
			return done, unavailable(op, err)
		}
		if len(out) == 0 {
			return done, unexpected(op, out)
		}
		from, err := strconv.ParseInt(out[0], 10, 64)
		if err != nil {
			return done, unexpected(op, out[0])
		}
		raw := out[1:]
		if len(raw) == 0 {
			return done, nil
		}
		byAcct := map[string][]any{}
		var accts []string
		for _, x := range raw {
			p, err := ledger.DecodePosting([]byte(x))
			if err != nil {
				return done, slotfare.E(op, slotfare.Other, "a posting of "+resource+"'s log does not decode", err)
			}
			if byAcct[p.Customer] == nil {
				accts = append(accts, p.Customer)
			}
			byAcct[p.Customer] = append(byAcct[p.Customer], p.ID, x)
		}
		if err := pipelined(ctx, s.rdb, func(p redis.Pipeliner, script scriptFunc) {
			for _, a := range accts {
				acct := s.acct(a)
				args := append([]any{0, len(byAcct[a]) / 2}, byAcct[a]...)
				script(accountScript, []string{acct + "bk", acct + "posted", acct + "postings"}, args...)
			}
		}); err != nil {
			return done, unavailable(op, err)
		}
		if err := s.rdb.Set(ctx, base+"logidx", from+int64(len(raw)), 0).Err(); err != nil {
			return done, unavailable(op, err)
		}
		done += len(raw)
		if len(raw) < repairBatch {
			return done, nil
		}
	}
	return done, nil
}
