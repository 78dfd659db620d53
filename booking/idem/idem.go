// Package idem keeps Idempotency-Keys where every replica sees them: a key
// is claimed once per account with the canonical fingerprint of its
// request, stays pending while the first request runs and then names what
// it made, until its time to live runs out. The same key sent to several
// replicas at once makes one booking.
package idem

import (
	"context"
	"sync"
	"time"

	"slotfare"
)

// State is where a key is.
type State int

const (
	// Claimed: the caller now owns the key and must Finish or Abandon it.
	Claimed State = iota
	// Pending: another request with this key and fingerprint is running.
	Pending
	// Done: a request with this key and fingerprint made Result.
	Done
	// Mismatch: the key was used with another fingerprint.
	Mismatch
)

// Claim is the answer to a claim: the key's state, and for Done what the
// first request made.
type Claim struct {
	State  State
	Result string
}

// Port stores keys. A claimed key must be finished or abandoned by its
// claimer; a pending claim whose claimer died is freed when its ttl ends.
type Port interface {
	// Claim takes key for account with fingerprint, or reports who has it.
	Claim(ctx context.Context, account, key, fingerprint string, ttl time.Duration, now time.Time) (Claim, error)
	// Finish records that the claim made result (a booking id); the key
	// then answers Done for ttl.
	Finish(ctx context.Context, account, key, fingerprint, result string, ttl time.Duration, now time.Time) error
	// Abandon gives a claim up (its request failed): the key is free.
	Abandon(ctx context.Context, account, key, fingerprint string) error
}

// Check validates a key's names and ttl.
func Check(op slotfare.Op, account, key string, ttl time.Duration) error {
	if account == "" || len(account) > 256 {
		return slotfare.Errorf(op, "account_id", "must be 1 to 256 bytes, got %d", len(account))
	}
	if key == "" || len(key) > 256 {
		return slotfare.Errorf(op, "Idempotency-Key", "must be 1 to 256 bytes, got %d", len(key))
	}
	if ttl < time.Second {
		return slotfare.Errorf(op, "ttl", "must be at least a second, got %s", ttl)
	}
	return nil
}

// Memory is the in-process Port. Keys whose ttl has ended (done keys, and
// pending claims whose claimer died) are dropped by a sweep, so the table
// stays bounded under churn by about twice the keys alive at once (see
// sweep). A dropped key is one Claim treats as free anyway; Finish of it
// answers a Conflict, as Redis, which expires keys itself, does. A key
// Recorded with a zero expiry never ends.
type Memory struct {
	mu   sync.Mutex
	keys map[[2]string]memKey
	// swept is how many keys the last sweep left.
	swept int
}

// memKey is one key's state; a zero expires never expires.
type memKey struct {
	fingerprint, result string
	done                bool
	expires             time.Time
}

func (k memKey) expired(now time.Time) bool { return !k.expires.IsZero() && !now.Before(k.expires) }

// NewMemory returns an empty in-process key table.
func NewMemory() *Memory { return &Memory{keys: map[[2]string]memKey{}} }

var _ Port = (*Memory)(nil)

// minSweep is the table size below which no sweep is made: a small table
// costs little, and a sweep of it would run too often.
const minSweep = 1024

// sweep drops the keys whose ttl has ended at now, once the table has
// grown to twice what the last sweep left (and to minSweep): each sweep
// then visits at most twice the keys added since the one before, so a
// Claim pays O(1) for it on average, and the table never holds more than
// max(minSweep, twice the keys alive at the last sweep). The caller holds
// mu.
func (m *Memory) sweep(now time.Time) {
	if len(m.keys) < max(minSweep, 2*m.swept) {
		return
	}
	for k, v := range m.keys {
		if v.expired(now) {
			delete(m.keys, k)
		}
	}
	m.swept = len(m.keys)
}

// Len is how many keys the table holds, swept or not yet.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}

// Claim implements Port.
func (m *Memory) Claim(ctx context.Context, account, key, fingerprint string, ttl time.Duration, now time.Time) (Claim, error) {
	if err := Check("idem.Claim", account, key, ttl); err != nil {
		return Claim{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	k := [2]string{account, key}
	cur, ok := m.keys[k]
	switch {
	case !ok || cur.expired(now):
		m.keys[k] = memKey{fingerprint: fingerprint, expires: now.Add(ttl)}
		return Claim{State: Claimed}, nil
	case cur.fingerprint != fingerprint:
		return Claim{State: Mismatch}, nil
	case cur.done:
		return Claim{State: Done, Result: cur.result}, nil
	}
	return Claim{State: Pending}, nil
}

// Finish implements Port. A key Recorded Done already finishes again with
// the same result (a retry).
func (m *Memory) Finish(ctx context.Context, account, key, fingerprint, result string, ttl time.Duration, now time.Time) error {
	const op slotfare.Op = "idem.Finish"
	if err := Check(op, account, key, ttl); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	k := [2]string{account, key}
	cur, ok := m.keys[k]
	if !ok || cur.fingerprint != fingerprint || (cur.done && cur.result != result) {
		return slotfare.E(op, slotfare.Conflict, slotfare.Field("Idempotency-Key"), "the key is not this request's claim")
	}
	m.keys[k] = memKey{fingerprint: fingerprint, result: result, done: true, expires: now.Add(ttl)}
	return nil
}

// Abandon implements Port: a pending claim with fingerprint is freed; a
// done key stays.
func (m *Memory) Abandon(ctx context.Context, account, key, fingerprint string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{account, key}
	if cur, ok := m.keys[k]; ok && cur.fingerprint == fingerprint && !cur.done {
		delete(m.keys, k)
	}
	return nil
}

// Recorded marks key Done with result until expires (never when zero), as
// a store learns it from a stored request that carried the key. With
// replace (loading the store, oldest first) it overwrites what the key
// held: the key was used again after its ttl. Otherwise a key another
// request holds now (another fingerprint, or done with another result) is
// left to it, and a key already Done keeps the later of the two expiries.
func (m *Memory) Recorded(account, key, fingerprint, result string, expires time.Time, replace bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{account, key}
	cur, ok := m.keys[k]
	switch {
	case !ok || replace:
	case cur.fingerprint != fingerprint || (cur.done && cur.result != result):
		return
	case cur.expires.IsZero() || expires.IsZero():
		expires = time.Time{}
	case cur.expires.After(expires):
		expires = cur.expires
	}
	m.keys[k] = memKey{fingerprint: fingerprint, result: result, done: true, expires: expires}
}
