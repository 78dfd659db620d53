// Package apikey keeps the API keys made over the API (POST /v1/keys) where
// every replica reads them: each key's record by name, the live ones by
// hash, and each account's claim to one role and VO. A replica looks a
// request's key up here on every use, so a key revoked on one replica is
// refused by all of them from the moment the revocation returns. An
// account's claim is made in the same step as its key's record, so that
// two replicas making keys of one new account at once cannot give it two
// roles or two VOs: the first claim holds while the account has a live key.
package apikey

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"slotfare"
	"slotfare/booking"
)

// Port stores the keys. Each change is one atomic step.
type Port interface {
	// Create stores k, a new live key, with its account's claim. A live
	// key of k's name is a Conflict naming "name"; live keys of k's
	// account with another role or VO are a Conflict naming "role" or
	// "vo". Creating again the live key already stored under k's name
	// with k's hash is nil (a retry).
	Create(ctx context.Context, k booking.KeyRecord) error
	// Revoke marks the live key named name revoked at at, so that Live no
	// longer finds it, and takes it out of its account's claim; it returns
	// the revoked record. No live key of that name is NotFound; the same
	// revocation sent again (the same request, an id unique to it) is the
	// first's answer.
	Revoke(ctx context.Context, name string, at time.Time, request string) (booking.KeyRecord, error)
	// Live is the live key whose hash is sha256 (booking.HashKey), ok false
	// when none is.
	Live(ctx context.Context, sha256 string) (k booking.KeyRecord, ok bool, err error)
	// All is every live key, by name.
	All(ctx context.Context) ([]booking.KeyRecord, error)
	// Adopt stores the records of keys kept elsewhere by an older
	// slotfare whose names it does not know yet: revoked ones too, so that
	// they stay revoked. A live one joins its account's claim even when
	// its role or VO disagree with it (they were made before claims).
	Adopt(ctx context.Context, ks []booking.KeyRecord) error
}

var hashPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Check validates a record a port is given.
func Check(op slotfare.Op, k booking.KeyRecord) error {
	switch {
	case k.Name == "" || len(k.Name) > 256:
		return slotfare.Errorf(op, "name", "must be 1 to 256 bytes, got %d", len(k.Name))
	case !hashPattern.MatchString(k.KeySHA256):
		return slotfare.Errorf(op, "key_sha256", "want the 64 lower-case hex digits of the key's sha256")
	case !k.Role.Valid():
		return slotfare.Errorf(op, "role", "%q is not a role", k.Role)
	case k.AccountID == "" || len(k.AccountID) > 256:
		return slotfare.Errorf(op, "account_id", "must be 1 to 256 bytes, got %d", len(k.AccountID))
	}
	return nil
}

// checkNew validates a key to create: a live one.
func checkNew(op slotfare.Op, k booking.KeyRecord) error {
	if k.RevokedAt != nil {
		return slotfare.Errorf(op, "revoked_at", "a new key is live")
	}
	return Check(op, k)
}

// ErrNameTaken is the Conflict of a Create whose name a live key has.
func ErrNameTaken(name string) error {
	return slotfare.E(slotfare.Op("apikey.Create"), slotfare.Conflict, slotfare.Field("name"),
		fmt.Sprintf("%q is the name of a live key (DELETE /v1/keys/%s first)", name, name))
}

// ErrClaimed is the Conflict of a Create whose account has live keys of
// another role or VO; field is "role" or "vo", the first that differs.
func ErrClaimed(account, field string, role booking.Role, vo string) error {
	return slotfare.E(slotfare.Op("apikey.Create"), slotfare.Conflict, slotfare.Field(field),
		fmt.Sprintf("account %q has keys of role %s and VO %q: another key of it must have the same role and VO", account, role, vo))
}

// CheckRequest validates a revocation's request id.
func CheckRequest(request string) error {
	if request == "" || len(request) > 256 {
		return slotfare.Errorf("apikey.Revoke", "request", "must be 1 to 256 bytes, got %d", len(request))
	}
	return nil
}

// ErrNoKey is the NotFound of a Revoke whose name no live key has.
func ErrNoKey(name string) error {
	return slotfare.E(slotfare.Op("apikey.Revoke"), slotfare.NotFound, fmt.Sprintf("no key %q", name))
}

// Claim is an account's claim: the role and VO of its live keys, and how
// many they are.
type Claim struct {
	Role booking.Role
	VO   string
	Keys int
}

// admits is nil when k may join the claim, else ErrClaimed naming the
// first field that differs.
func (c Claim) admits(k booking.KeyRecord) error {
	if c.Role != k.Role {
		return ErrClaimed(k.AccountID, "role", c.Role, c.VO)
	}
	if c.VO != k.VO {
		return ErrClaimed(k.AccountID, "vo", c.Role, c.VO)
	}
	return nil
}
