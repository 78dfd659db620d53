package redisstore

import (
	"cmp"
	"context"
	_ "embed"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/records"
)

// claimScript decides a hold's claim on its account's hold limits in the
// resource's slot (records.HoldClaims): a hash of the account's claims,
// each its expiry and node-seconds (claim.lua). Claims that
// lapsed are dropped, and so are those whose booking record (in the same
// slot, sf:{R}:bk:ID) is stored with a status other than held; a claim
// whose record is not stored yet counts (its hold is being written). The
// claim's own id is skipped, so a retried script claims it once.
//
//	KEYS: claims (hash)
//	ARGV: now (unix s), id, expiry (unix s), node-seconds, max holds,
//	      max node-seconds, prefix of the resource's record hashes
var claimScript = redis.NewScript(claimLua + `
local r = claimCheck(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7])
if r then return r end
claimDo(KEYS[1], ARGV[2], ARGV[3], ARGV[4])
return {'OK'}
`)

//go:embed claim.lua
var claimLua string

func (s *Records) claimKeys(resource, account string) []string {
	base := s.res(resource)
	return []string{base + "hc:" + account}
}

// ClaimHold implements records.HoldClaims. The claims live in the
// resource's slot beside its records, which the script reads there (the
// same hash slot, so a Redis Cluster serves it whole).
func (s *Records) ClaimHold(ctx context.Context, c records.HoldClaim) (bool, []records.Held, error) {
	const op slotfare.Op = "redisstore.Records.ClaimHold"
	if err := records.CheckClaim(c); err != nil {
		return false, nil, err
	}
	out, err := claimScript.Run(ctx, s.rdb, s.claimKeys(c.Resource, c.Account), c.Now.Unix(), c.BookingID, c.Expires.Unix(),
		c.NodeSeconds, c.MaxHolds, c.MaxNodeSeconds, s.res(c.Resource)+"bk:").StringSlice()
	if err != nil {
		return false, nil, unavailable(op, err)
	}
	if len(out) == 1 && out[0] == "OK" {
		return true, nil, nil
	}
	counted, err := overClaims(op, out)
	if err != nil {
		return false, nil, err
	}
	return false, counted, nil
}

// overClaims are the claims of claimCheck's OVER answer.
func overClaims(op slotfare.Op, out []string) ([]records.Held, error) {
	if len(out) == 0 || out[0] != "OVER" || (len(out)-1)%3 != 0 {
		return nil, unexpected(op, out)
	}
	counted := make([]records.Held, 0, (len(out)-1)/3)
	for i := 1; i < len(out); i += 3 {
		exp, err1 := strconv.ParseInt(out[i+1], 10, 64)
		ns, err2 := strconv.ParseInt(out[i+2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, unexpected(op, out)
		}
		counted = append(counted, records.Held{BookingID: out[i], Expires: time.Unix(exp, 0).UTC(), NodeSeconds: ns})
	}
	// By expiry, then id: the hash answers in no order.
	slices.SortFunc(counted, func(a, b records.Held) int {
		return cmp.Or(a.Expires.Compare(b.Expires), strings.Compare(a.BookingID, b.BookingID))
	})
	return counted, nil
}

// UnclaimHold implements records.HoldClaims.
func (s *Records) UnclaimHold(ctx context.Context, resource, account, id string) error {
	const op slotfare.Op = "redisstore.Records.UnclaimHold"
	if err := s.rdb.HDel(ctx, s.claimKeys(resource, account)[0], id).Err(); err != nil {
		return unavailable(op, err)
	}
	return nil
}
