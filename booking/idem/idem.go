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
func Check(op, account, key string, ttl time.Duration) error {
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

// Memory is the in-process Port.
type Memory struct {
	mu   sync.Mutex
	keys map[[2]string]memKey
}

type memKey struct {
	fingerprint, result string
	done                bool
	expires             time.Time
}

// NewMemory returns an empty in-process key table.
func NewMemory() *Memory { return &Memory{keys: map[[2]string]memKey{}} }

var _ Port = (*Memory)(nil)

// Claim implements Port.
func (m *Memory) Claim(ctx context.Context, account, key, fingerprint string, ttl time.Duration, now time.Time) (Claim, error) {
	if err := Check("idem.Claim", account, key, ttl); err != nil {
		return Claim{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{account, key}
	cur, ok := m.keys[k]
	switch {
	case !ok || !now.Before(cur.expires):
		m.keys[k] = memKey{fingerprint: fingerprint, expires: now.Add(ttl)}
		return Claim{State: Claimed}, nil
	case cur.fingerprint != fingerprint:
		return Claim{State: Mismatch}, nil
	case cur.done:
		return Claim{State: Done, Result: cur.result}, nil
	}
	return Claim{State: Pending}, nil
}

// Finish implements Port.
func (m *Memory) Finish(ctx context.Context, account, key, fingerprint, result string, ttl time.Duration, now time.Time) error {
	const op = "idem.Finish"
	if err := Check(op, account, key, ttl); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{account, key}
	cur, ok := m.keys[k]
	if !ok || cur.fingerprint != fingerprint || (cur.done && cur.result != result) {
		return slotfare.E(op, slotfare.Conflict, slotfare.Field("Idempotency-Key"), "the key is not this request's claim")
	}
	m.keys[k] = memKey{fingerprint: fingerprint, result: result, done: true, expires: now.Add(ttl)}
	return nil
}

// Abandon implements Port.
func (m *Memory) Abandon(ctx context.Context, account, key, fingerprint string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{account, key}
	if cur, ok := m.keys[k]; ok && cur.fingerprint == fingerprint && !cur.done {
		delete(m.keys, k)
	}
	return nil
}
