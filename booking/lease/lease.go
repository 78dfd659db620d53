// Package lease elects, per resource, the one replica that runs its ticker:
// expiring holds, starting bookings, denying excess shows and marking
// no-shows are batch decisions that must be taken once. A lease is held by
// one holder until it expires or is released; each grant carries a fencing
// token larger than every earlier grant's, so a store can refuse the writes
// of a holder that lost its lease while it was paused.
package lease

import (
	"context"
	"fmt"
	"sync"
	"time"

	"slotfare"
)

// Grant is a lease held: who holds it, until when, and its fencing token.
type Grant struct {
	Name    string
	Holder  string
	Token   int64
	Expires time.Time
}

// Fence is what a lease holder's write carries so that a holder paused
// past its lease (a long pause, a slow read) cannot overwrite what its
// successor wrote: the lease's name and the token of the holder's grant.
// A store keeps, per resource and lease name and where the resource's data
// lives, the newest token it has seen, and refuses a write with an older
// one (ErrFenced) in the step that would apply it. The zero Fence is a
// write no lease guards (a provider's reconfiguration, a process whose
// stores are its own): it is never refused and moves no token.
type Fence struct {
	Name  string
	Token int64
}

// Follows reports whether f is the next grant, to the same holder, of
// the lease prev was granted under (or prev itself): a lease's tokens are
// consecutive (Port), so no other holder was granted it between the two
// and nothing was written under it but by their holder.
func (f Fence) Follows(prev Fence) bool {
	return f.Name == prev.Name && prev.Token > 0 && (f.Token == prev.Token || f.Token == prev.Token+1)
}

// CheckFence validates a fence: zero, or a lease's name with a positive
// token.
func CheckFence(op slotfare.Op, f Fence) error {
	if f == (Fence{}) {
		return nil
	}
	if f.Token < 1 {
		return slotfare.Errorf(op, "fence", "token must be positive, got %d", f.Token)
	}
	if f.Name == "" || len(f.Name) > 256 {
		return slotfare.Errorf(op, "fence", "lease name must be 1 to 256 bytes, got %d", len(f.Name))
	}
	return nil
}

// Admits reports whether a write fenced by f may go on where newest is
// the newest token seen under f's lease (0 when none), and the newest
// token once it has. The caller keeps the answer in the write's own step.
func (f Fence) Admits(newest int64) (ok bool, after int64) {
	if f.Token == 0 {
		return true, newest
	}
	return f.Token >= newest, max(f.Token, newest)
}

// ErrFenced is the refusal of a write on res whose fence is older than
// newest, the newest token res has seen under its lease: its writer lost
// the lease.
func ErrFenced(op slotfare.Op, res string, f Fence, newest int64) error {
	return slotfare.E(op, slotfare.Fenced, fmt.Sprintf(
		"lease %s's token %d is older than token %d, the newest %s has seen: its holder lost the lease", f.Name, f.Token, newest, res))
}

// Port grants leases. Times come from the caller (now), so that tests and
// the simulator drive them; a Redis lease uses the server's own expiry.
type Port interface {
	// Acquire grants name to holder for ttl when no one else holds it
	// (free or expired), with a new token; ok is false when another holder
	// has it. Acquiring a lease one holds already renews it, same token.
	// A lease's tokens are consecutive, 1, 2, 3, ...: a holder whose new
	// grant's token follows its last one's knows no one held it between
	// (Fence.Follows).
	Acquire(ctx context.Context, name, holder string, ttl time.Duration, now time.Time) (g Grant, ok bool, err error)
	// Renew extends holder's lease of name granted with token; ok is
	// false when it has lost it (expired and taken, or released).
	Renew(ctx context.Context, name, holder string, token int64, ttl time.Duration, now time.Time) (ok bool, err error)
	// Release gives the lease up if holder still holds it with token.
	Release(ctx context.Context, name, holder string, token int64) error
}

// Check validates the arguments every implementation takes.
func Check(op slotfare.Op, name, holder string, ttl time.Duration) error {
	if name == "" || len(name) > 256 {
		return slotfare.Errorf(op, "name", "must be 1 to 256 bytes, got %d", len(name))
	}
	if holder == "" || len(holder) > 256 {
		return slotfare.Errorf(op, "holder", "must be 1 to 256 bytes, got %d", len(holder))
	}
	if ttl < time.Millisecond || ttl > time.Hour {
		return slotfare.Errorf(op, "ttl", "must be between 1 ms and 1 h, got %s", ttl)
	}
	return nil
}

// Memory is the in-process Port: one process, one clock (the caller's).
type Memory struct {
	mu     sync.Mutex
	grants map[string]Grant
	tokens map[string]int64
}

// NewMemory returns an in-process lease table.
func NewMemory() *Memory {
	return &Memory{grants: map[string]Grant{}, tokens: map[string]int64{}}
}

var _ Port = (*Memory)(nil)

// Acquire implements Port.
func (m *Memory) Acquire(ctx context.Context, name, holder string, ttl time.Duration, now time.Time) (Grant, bool, error) {
	if err := Check("lease.Acquire", name, holder, ttl); err != nil {
		return Grant{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	g, held := m.grants[name]
	switch {
	case held && now.Before(g.Expires) && g.Holder != holder:
		return g, false, nil
	case held && now.Before(g.Expires):
		g.Expires = now.Add(ttl)
	default:
		m.tokens[name]++
		g = Grant{Name: name, Holder: holder, Token: m.tokens[name], Expires: now.Add(ttl)}
	}
	m.grants[name] = g
	return g, true, nil
}

// Renew implements Port.
func (m *Memory) Renew(ctx context.Context, name, holder string, token int64, ttl time.Duration, now time.Time) (bool, error) {
	if err := Check("lease.Renew", name, holder, ttl); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	g, held := m.grants[name]
	if !held || g.Holder != holder || g.Token != token || !now.Before(g.Expires) {
		return false, nil
	}
	g.Expires = now.Add(ttl)
	m.grants[name] = g
	return true, nil
}

// Release implements Port.
func (m *Memory) Release(ctx context.Context, name, holder string, token int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, held := m.grants[name]; held && g.Holder == holder && g.Token == token {
		delete(m.grants, name)
	}
	return nil
}
