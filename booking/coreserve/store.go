package coreserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"slotfare"
)

// Store is where the broker's co-reservation records outlive a request:
// the port the broker owns. Contract:
//   - Put writes rec whole, durably, if the stored version is replaces
//     (0: no record of that id yet), and returns the new version
//     (replaces + 1); otherwise it is a Conflict and nothing is written. So
//     two brokers (replicas, or a request and Recover) deciding on the same
//     version cannot both win. Writing again the very record stored at
//     replaces + 1 answers replaces + 1: a retry whose answer was lost
//     (go-redis retries a timeout) is not a conflict with itself. In the
//     same atomic step it files the record
//     in the due index under rec.DueAt while rec is unsettled, and takes it
//     out once rec is settled.
//   - Get returns the latest record with its Version; found is false for
//     an unknown id.
//   - Due returns, soonest due first, at most limit of the records filed
//     at or before now (the soonest, or as the store shares limit out when
//     more are due), and claims them in the same atomic step: each is
//     filed again at claimUntil, so that other brokers ticking meanwhile
//     pass it by, and it is due again then if this one could not settle
//     it. What a tick reads is what is due, however much is held.
//   - It is safe for concurrent use.
//
// Memory keeps them in the process (tests); the adapters live with their
// dependency: booking/boltstore/coreservebolt in a bbolt file of the data
// directory (serve), booking/redisstore.CoReservations on the Redis that
// replicas share (serve --redis). Their contract suite is
// booking/internal/coreservetest.
type Store interface {
	Get(ctx context.Context, id string) (rec Record, found bool, err error)
	Put(ctx context.Context, rec Record, replaces int64) (int64, error)
	Due(ctx context.Context, now time.Time, limit int, claimUntil time.Time) ([]Record, error)
	Close() error
}

// Memory is a Store in the process's memory.
type Memory struct {
	mu   sync.Mutex
	recs map[string][]byte
	vers map[string]int64
	due  dueIndex
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{recs: map[string][]byte{}, vers: map[string]int64{}, due: dueIndex{at: map[string]int64{}}}
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, id string) (Record, bool, error) {
	m.mu.Lock()
	data, ok := m.recs[id]
	v := m.vers[id]
	m.mu.Unlock()
	if !ok {
		return Record{}, false, nil
	}
	rec, err := DecodeRecord(data, v)
	return rec, err == nil, err
}

// Put implements Store.
func (m *Memory) Put(ctx context.Context, rec Record, replaces int64) (int64, error) {
	data, err := EncodeRecord(rec)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur := m.vers[rec.ID]; cur != replaces {
		if cur == replaces+1 && bytes.Equal(m.recs[rec.ID], data) {
			return cur, nil
		}
		return 0, VersionConflict(rec.ID, cur, replaces)
	}
	m.recs[rec.ID] = data
	m.vers[rec.ID] = replaces + 1
	m.due.set(rec.ID, DueMillis(rec.DueAt), !rec.Status.Settled())
	return replaces + 1, nil
}

// Due implements Store.
func (m *Memory) Due(ctx context.Context, now time.Time, limit int, claimUntil time.Time) ([]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := m.due.due(now.UnixMilli(), limit)
	out := make([]Record, 0, len(ids))
	for _, id := range ids {
		m.due.set(id, DueMillis(claimUntil), true)
		rec, err := DecodeRecord(m.recs[id], m.vers[id])
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// Close implements Store.
func (m *Memory) Close() error { return nil }

// EncodeRecord is rec as every Store keeps it (JSON), or Invalid when it
// has no id.
func EncodeRecord(rec Record) ([]byte, error) {
	if rec.ID == "" {
		return nil, slotfare.E(slotfare.Op("coreserve.Put"), slotfare.Invalid, slotfare.Field("co_reservation_id"), "a record needs an id")
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, slotfare.E(slotfare.Op("coreserve.Put"), slotfare.Other, err)
	}
	return data, nil
}

// DecodeRecord reads a record EncodeRecord wrote, stored at version.
func DecodeRecord(data []byte, version int64) (Record, error) {
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return Record{}, slotfare.E(slotfare.Op("coreserve.Get"), slotfare.Other, "a stored co-reservation does not decode", err)
	}
	rec.Version = version
	return rec, nil
}

// VersionConflict is a Put's Conflict: the record id is at version cur,
// not replaces.
func VersionConflict(id string, cur, replaces int64) error {
	return slotfare.E(slotfare.Op("coreserve.Put"), slotfare.Conflict,
		fmt.Sprintf("co-reservation %s is at version %d, not %d: it changed meanwhile", id, cur, replaces))
}
