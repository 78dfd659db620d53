package apikey

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"slotfare"
	"slotfare/booking"
)

// Memory is the in-process Port, and the index of a store that one process
// owns (NewStored): one change at a time, checked against the index and
// written to the store before the index takes it, so that the index is
// always what the store holds.
type Memory struct {
	write sync.Mutex // one change at a time, held across the store's write
	save  func(context.Context, booking.KeyRecord) error

	mu     sync.RWMutex // the index; changed only with write held
	byName map[string]booking.KeyRecord
	live   map[string]string // hash -> name
	claims map[string]Claim  // account -> claim
	// revokedBy is the request that revoked each name's key, for retries.
	revokedBy map[string]string
}

var _ Port = (*Memory)(nil)

// NewMemory returns an empty in-process Port.
func NewMemory() *Memory {
	m, _ := NewStored(nil, func(context.Context, booking.KeyRecord) error { return nil })
	return m
}

// NewStored returns the Port of a store one process owns, holding stored,
// the latest record of every key by name; save writes a record to the
// store durably (one transaction), replacing the stored one of its name.
func NewStored(stored []booking.KeyRecord, save func(context.Context, booking.KeyRecord) error) (*Memory, error) {
	m := &Memory{save: save, byName: map[string]booking.KeyRecord{}, live: map[string]string{}, claims: map[string]Claim{}, revokedBy: map[string]string{}}
	for _, k := range stored {
		if err := Check("apikey.NewStored", k); err != nil {
			return nil, slotfare.E(slotfare.Op("apikey.NewStored"), slotfare.Other, "stored key "+k.Name, err)
		}
		if _, dup := m.byName[k.Name]; !dup {
			m.put(k)
		}
	}
	return m, nil
}

// put indexes k, which replaces the record of its name. The caller holds
// mu (or is NewStored).
func (m *Memory) put(k booking.KeyRecord) {
	if old, ok := m.byName[k.Name]; ok && old.RevokedAt == nil {
		delete(m.live, old.KeySHA256)
		c := m.claims[old.AccountID]
		if c.Keys--; c.Keys <= 0 {
			delete(m.claims, old.AccountID)
		} else {
			m.claims[old.AccountID] = c
		}
	}
	m.byName[k.Name] = k
	if k.RevokedAt != nil {
		return
	}
	m.live[k.KeySHA256] = k.Name
	c, ok := m.claims[k.AccountID]
	if !ok {
		c = Claim{Role: k.Role, VO: k.VO}
	}
	c.Keys++
	m.claims[k.AccountID] = c
}

// store writes k to the store, then indexes it. The caller holds write.
func (m *Memory) store(ctx context.Context, k booking.KeyRecord) error {
	if err := m.save(ctx, k); err != nil {
		return err
	}
	m.mu.Lock()
	m.put(k)
	m.mu.Unlock()
	return nil
}

// Create implements Port.
func (m *Memory) Create(ctx context.Context, k booking.KeyRecord) error {
	const op slotfare.Op = "apikey.Create"
	if err := checkNew(op, k); err != nil {
		return err
	}
	m.write.Lock()
	defer m.write.Unlock()
	m.mu.RLock()
	cur, known := m.byName[k.Name]
	c, claimed := m.claims[k.AccountID]
	m.mu.RUnlock()
	if known && cur.RevokedAt == nil {
		if cur.KeySHA256 == k.KeySHA256 {
			return nil
		}
		return ErrNameTaken(k.Name)
	}
	if claimed {
		if err := c.admits(k); err != nil {
			return err
		}
	}
	return m.store(ctx, k)
}

// Revoke implements Port.
func (m *Memory) Revoke(ctx context.Context, name string, at time.Time, request string) (booking.KeyRecord, error) {
	if err := CheckRequest(request); err != nil {
		return booking.KeyRecord{}, err
	}
	m.write.Lock()
	defer m.write.Unlock()
	m.mu.RLock()
	cur, ok := m.byName[name]
	m.mu.RUnlock()
	switch {
	case !ok:
		return booking.KeyRecord{}, ErrNoKey(name)
	case cur.RevokedAt != nil && m.revokedBy[name] == request:
		return cur, nil
	case cur.RevokedAt != nil:
		return booking.KeyRecord{}, ErrNoKey(name)
	}
	cur.RevokedAt = &at
	if err := m.store(ctx, cur); err != nil {
		return booking.KeyRecord{}, err
	}
	m.revokedBy[name] = request
	return cur, nil
}

// Live implements Port.
func (m *Memory) Live(ctx context.Context, sha256 string) (booking.KeyRecord, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	name, ok := m.live[sha256]
	if !ok {
		return booking.KeyRecord{}, false, nil
	}
	return m.byName[name], true, nil
}

// All implements Port.
func (m *Memory) All(ctx context.Context) ([]booking.KeyRecord, error) {
	m.mu.RLock()
	out := make([]booking.KeyRecord, 0, len(m.live))
	for _, name := range m.live {
		out = append(out, m.byName[name])
	}
	m.mu.RUnlock()
	slices.SortFunc(out, func(a, b booking.KeyRecord) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Adopt implements Port.
func (m *Memory) Adopt(ctx context.Context, ks []booking.KeyRecord) error {
	for _, k := range ks {
		if err := Check("apikey.Adopt", k); err != nil {
			return err
		}
	}
	m.write.Lock()
	defer m.write.Unlock()
	for _, k := range ks {
		m.mu.RLock()
		_, known := m.byName[k.Name]
		m.mu.RUnlock()
		if known {
			continue
		}
		if err := m.store(ctx, k); err != nil {
			return err
		}
	}
	return nil
}
