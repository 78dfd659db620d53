package redisstore

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/apikey"
)

//go:embed apikeys.lua
var apiKeysLua string

// APIKeys is apikey.Port on Redis, in one hash slot ({apikeys}): a key's
// name, hash and account's claim are checked and changed in one function
// call, on a server as on a cluster. Live reads one field of one hash.
type APIKeys struct {
	rdb  redis.UniversalClient
	keys []string // names, live, claims, revocations
}

var _ apikey.Port = (*APIKeys)(nil)

// NewAPIKeys returns the keys on rdb under prefix ("sf" when empty).
func NewAPIKeys(rdb redis.UniversalClient, prefix string) *APIKeys {
	if prefix == "" {
		prefix = "sf"
	}
	k := func(s string) string { return prefix + ":{apikeys}:" + s }
	return &APIKeys{rdb: rdb, keys: []string{k("names"), k("live"), k("claims"), k("revocations")}}
}

// keyArgs are a record's arguments to keycreate and keyadopt: name, hash,
// account, role, VO, then the record.
func keyArgs(k booking.KeyRecord) ([]any, error) {
	rec, err := json.Marshal(k)
	if err != nil {
		return nil, err
	}
	return []any{k.Name, k.KeySHA256, k.AccountID, string(k.Role), k.VO, rec}, nil
}

// Create implements apikey.Port.
func (a *APIKeys) Create(ctx context.Context, k booking.KeyRecord) error {
	const op slotfare.Op = "redisstore.APIKeys.Create"
	if err := apikey.Check(op, k); err != nil {
		return err
	}
	if k.RevokedAt != nil {
		return slotfare.Errorf(op, "revoked_at", "a new key is live")
	}
	args, err := keyArgs(k)
	if err != nil {
		return slotfare.E(op, slotfare.Other, err)
	}
	out, err := keyCreateFunc.Run(ctx, a.rdb, a.keys, args...).StringSlice()
	if err != nil {
		return unavailable(op, err)
	}
	switch {
	case len(out) == 1 && out[0] == "OK":
		return nil
	case len(out) == 1 && out[0] == "NAME":
		return apikey.ErrNameTaken(k.Name)
	case len(out) == 4 && out[0] == "CLAIMED":
		return apikey.ErrClaimed(k.AccountID, out[1], booking.Role(out[2]), out[3])
	}
	return unexpected(op, out)
}

// Revoke implements apikey.Port.
func (a *APIKeys) Revoke(ctx context.Context, name string, at time.Time, request string) (booking.KeyRecord, error) {
	const op slotfare.Op = "redisstore.APIKeys.Revoke"
	if err := apikey.CheckRequest(request); err != nil {
		return booking.KeyRecord{}, err
	}
	when, err := json.Marshal(at)
	if err != nil {
		return booking.KeyRecord{}, slotfare.Errorf(op, "at", "%v", err)
	}
	out, err := keyRevokeFunc.Run(ctx, a.rdb, a.keys, name, strings.Trim(string(when), `"`), request).StringSlice()
	if err != nil {
		return booking.KeyRecord{}, unavailable(op, err)
	}
	switch {
	case len(out) == 1 && out[0] == "NONE":
		return booking.KeyRecord{}, apikey.ErrNoKey(name)
	case len(out) != 2 || out[0] != "OK":
		return booking.KeyRecord{}, unexpected(op, out)
	}
	return decodeKey(op, name, out[1])
}

func decodeKey(op slotfare.Op, name, rec string) (booking.KeyRecord, error) {
	var k booking.KeyRecord
	if err := json.Unmarshal([]byte(rec), &k); err != nil {
		return k, slotfare.E(op, slotfare.Other, fmt.Sprintf("stored key %s", name), err)
	}
	return k, nil
}

// Live implements apikey.Port: one HGET.
func (a *APIKeys) Live(ctx context.Context, sha256 string) (booking.KeyRecord, bool, error) {
	const op slotfare.Op = "redisstore.APIKeys.Live"
	rec, err := a.rdb.HGet(ctx, a.keys[1], sha256).Result()
	if err == redis.Nil {
		return booking.KeyRecord{}, false, nil
	}
	if err != nil {
		return booking.KeyRecord{}, false, unavailable(op, err)
	}
	k, err := decodeKey(op, sha256, rec)
	return k, err == nil, err
}

// All implements apikey.Port.
func (a *APIKeys) All(ctx context.Context) ([]booking.KeyRecord, error) {
	const op slotfare.Op = "redisstore.APIKeys.All"
	recs, err := a.rdb.HGetAll(ctx, a.keys[0]).Result()
	if err != nil {
		return nil, unavailable(op, err)
	}
	var out []booking.KeyRecord
	for name, rec := range recs {
		k, err := decodeKey(op, name, rec)
		if err != nil {
			return nil, err
		}
		if k.RevokedAt == nil {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b booking.KeyRecord) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Adopt implements apikey.Port: one call for every key.
func (a *APIKeys) Adopt(ctx context.Context, ks []booking.KeyRecord) error {
	const op slotfare.Op = "redisstore.APIKeys.Adopt"
	if len(ks) == 0 {
		return nil
	}
	args := make([]any, 0, 7*len(ks))
	for _, k := range ks {
		if err := apikey.Check(op, k); err != nil {
			return err
		}
		ka, err := keyArgs(k)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		live := ""
		if k.RevokedAt == nil {
			live = "1"
		}
		args = append(args, ka[:5]...)
		args = append(args, live, ka[5])
	}
	if err := keyAdoptFunc.Run(ctx, a.rdb, a.keys, args...).Err(); err != nil {
		return unavailable(op, err)
	}
	return nil
}
