package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/lease"
)

// leaseScript grants, renews and releases a lease: a hash (holder, token)
// that Redis expires itself, and a counter of tokens that never goes back.
// Run twice after a timeout it answers the same: the holder already holds
// it, with the same token.
var leaseScript = redis.NewScript(`
local op, holder = ARGV[1], ARGV[2]
local cur = redis.call('HGET', KEYS[1], 'holder')
local tok = redis.call('HGET', KEYS[1], 'token')
if op == 'acquire' then
  if cur and cur ~= holder then return {0, tonumber(tok), redis.call('PTTL', KEYS[1])} end
  if not cur then
    tok = redis.call('INCR', KEYS[2])
    redis.call('HSET', KEYS[1], 'holder', holder, 'token', tok)
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {1, tonumber(tok), tonumber(ARGV[3])}
end
if cur ~= holder or tok ~= ARGV[3] then return 0 end
if op == 'renew' then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return 1
end
redis.call('DEL', KEYS[1])
return 1
`)

// Leases is lease.Port on Redis: the server's clock expires leases, so the
// callers' now only dates the grants it returns.
type Leases struct {
	rdb    redis.UniversalClient
	prefix string
}

var _ lease.Port = (*Leases)(nil)

// NewLeases returns the lease table on rdb under prefix ("sf" when empty).
func NewLeases(rdb redis.UniversalClient, prefix string) *Leases {
	if prefix == "" {
		prefix = "sf"
	}
	return &Leases{rdb: rdb, prefix: prefix}
}

func (l *Leases) keys(name string) []string {
	base := l.prefix + ":{lease:" + name + "}:"
	return []string{base + "grant", base + "tokens"}
}

// Acquire implements lease.Port.
func (l *Leases) Acquire(ctx context.Context, name, holder string, ttl time.Duration, now time.Time) (lease.Grant, bool, error) {
	const op slotfare.Op = "redisstore.Leases.Acquire"
	if err := lease.Check(op, name, holder, ttl); err != nil {
		return lease.Grant{}, false, err
	}
	out, err := leaseScript.Run(ctx, l.rdb, l.keys(name), "acquire", holder, ttl.Milliseconds()).Slice()
	if err != nil {
		return lease.Grant{}, false, unavailable(op, err)
	}
	if len(out) != 3 {
		return lease.Grant{}, false, unexpected(op, out)
	}
	won, _ := out[0].(int64)
	tok, _ := out[1].(int64)
	ms, _ := out[2].(int64)
	g := lease.Grant{Name: name, Token: tok, Expires: now.Add(time.Duration(ms) * time.Millisecond), Holder: holder}
	if won != 1 {
		g.Holder = "" // another's: who is not told
		return g, false, nil
	}
	return g, true, nil
}

// Renew implements lease.Port.
func (l *Leases) Renew(ctx context.Context, name, holder string, token int64, ttl time.Duration, now time.Time) (bool, error) {
	const op slotfare.Op = "redisstore.Leases.Renew"
	if err := lease.Check(op, name, holder, ttl); err != nil {
		return false, err
	}
	n, err := leaseScript.Run(ctx, l.rdb, l.keys(name), "renew", holder, strconv.FormatInt(token, 10), ttl.Milliseconds()).Int64()
	if err != nil {
		return false, unavailable(op, err)
	}
	return n == 1, nil
}

// Release implements lease.Port.
func (l *Leases) Release(ctx context.Context, name, holder string, token int64) error {
	const op slotfare.Op = "redisstore.Leases.Release"
	if _, err := leaseScript.Run(ctx, l.rdb, l.keys(name), "release", holder, strconv.FormatInt(token, 10)).Int64(); err != nil {
		return slotfare.E(op, slotfare.Unavailable, fmt.Sprintf("release of %s", name), err)
	}
	return nil
}
