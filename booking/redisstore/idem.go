package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/idem"
)

// idemScript claims, finishes and abandons a key: a hash (fingerprint,
// result) that Redis expires itself. Each step run twice answers the same.
var idemScript = redis.NewScript(`
local op, fp = ARGV[1], ARGV[2]
local cur = redis.call('HGET', KEYS[1], 'fp')
if op == 'claim' then
  if not cur then
    redis.call('HSET', KEYS[1], 'fp', fp)
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return {'claimed'}
  end
  if cur ~= fp then return {'mismatch'} end
  local res = redis.call('HGET', KEYS[1], 'result')
  if res then return {'done', res} end
  return {'pending'}
end
if op == 'finish' then
  local res = redis.call('HGET', KEYS[1], 'result')
  if cur ~= fp or (res and res ~= ARGV[3]) then return 0 end
  redis.call('HSET', KEYS[1], 'result', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return 1
end
if cur == fp and not redis.call('HGET', KEYS[1], 'result') then redis.call('DEL', KEYS[1]) end
return 1
`)

// Keys is idem.Port on Redis, a key per account and Idempotency-Key under
// the account's hash tag. The server's clock expires keys.
type Keys struct {
	rdb    redis.UniversalClient
	prefix string
}

var _ idem.Port = (*Keys)(nil)

// NewKeys returns the key table on rdb under prefix ("sf" when empty).
func NewKeys(rdb redis.UniversalClient, prefix string) *Keys {
	if prefix == "" {
		prefix = "sf"
	}
	return &Keys{rdb: rdb, prefix: prefix}
}

func (k *Keys) key(account, key string) []string {
	return []string{k.prefix + ":{acct:" + account + "}:idem:" + key}
}

// Claim implements idem.Port.
func (k *Keys) Claim(ctx context.Context, account, key, fingerprint string, ttl time.Duration, now time.Time) (idem.Claim, error) {
	const op slotfare.Op = "redisstore.Keys.Claim"
	if err := idem.Check(op, account, key, ttl); err != nil {
		return idem.Claim{}, err
	}
	out, err := idemScript.Run(ctx, k.rdb, k.key(account, key), "claim", fingerprint, ttl.Milliseconds()).StringSlice()
	if err != nil {
		return idem.Claim{}, unavailable(op, err)
	}
	switch {
	case len(out) == 1 && out[0] == "claimed":
		return idem.Claim{State: idem.Claimed}, nil
	case len(out) == 1 && out[0] == "mismatch":
		return idem.Claim{State: idem.Mismatch}, nil
	case len(out) == 1 && out[0] == "pending":
		return idem.Claim{State: idem.Pending}, nil
	case len(out) == 2 && out[0] == "done":
		return idem.Claim{State: idem.Done, Result: out[1]}, nil
	}
	return idem.Claim{}, unexpected(op, out)
}

// Finish implements idem.Port.
func (k *Keys) Finish(ctx context.Context, account, key, fingerprint, result string, ttl time.Duration, now time.Time) error {
	const op slotfare.Op = "redisstore.Keys.Finish"
	if err := idem.Check(op, account, key, ttl); err != nil {
		return err
	}
	n, err := idemScript.Run(ctx, k.rdb, k.key(account, key), "finish", fingerprint, result, ttl.Milliseconds()).Int64()
	if err != nil {
		return unavailable(op, err)
	}
	if n != 1 {
		return slotfare.E(op, slotfare.Conflict, slotfare.Field("Idempotency-Key"), "the key is not this request's claim")
	}
	return nil
}

// Abandon implements idem.Port.
func (k *Keys) Abandon(ctx context.Context, account, key, fingerprint string) error {
	if err := idemScript.Run(ctx, k.rdb, k.key(account, key), "abandon", fingerprint).Err(); err != nil {
		return unavailable("redisstore.Keys.Abandon", err)
	}
	return nil
}
