package redisstore

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/records"
	"slotfare/ledger"
)

var _ records.IndexRepairer = (*Records)(nil)

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

// RepairIndex implements records.IndexRepairer: the resource's posting log
// (sf:{R}:log, written with each write) is read from a cursor kept beside
// it (sf:{R}:logidx), its postings indexed under their accounts again by
// accountScript, which appends a posting only once, and the cursor moved
// on. Every step is idempotent, so two replicas at it, or a repair racing
// the write's own indexing, add nothing twice.
func (s *Records) RepairIndex(ctx context.Context, resource string) (int, error) {
	const op = "records.RepairIndex"
	base := s.res(resource)
	done := 0
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
