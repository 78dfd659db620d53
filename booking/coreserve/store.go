package coreserve

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"slotfare"
)

// Store is where the broker's co-reservation records outlive a request:
// the port the broker owns. Contract:
//   - Put writes rec whole, durably, if the stored version is replaces
//     (0: no record of that id yet), and returns the new version
//     (replaces + 1); otherwise it is a Conflict and nothing is written. So
//     two brokers (replicas, or a request and Recover) deciding on the same
//     version cannot both win.
//   - Get returns the latest record with its Version; found is false for
//     an unknown id.
//   - Unsettled lists the records whose status is not settled, for
//     Recover.
//   - It is safe for concurrent use.
//
// Memory keeps them in the process (tests); Bolt in a bbolt file of the
// data directory (serve); Redis on the Redis that replicas share (serve
// --redis).
type Store interface {
	Get(ctx context.Context, id string) (rec Record, found bool, err error)
	Put(ctx context.Context, rec Record, replaces int64) (int64, error)
	Unsettled(ctx context.Context) ([]Record, error)
	Close() error
}

// Memory is a Store in the process's memory.
type Memory struct {
	mu   sync.Mutex
	recs map[string][]byte
	vers map[string]int64
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{recs: map[string][]byte{}, vers: map[string]int64{}}
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
	rec, err := decodeRecord(data, v)
	return rec, err == nil, err
}

// Put implements Store.
func (m *Memory) Put(ctx context.Context, rec Record, replaces int64) (int64, error) {
	data, err := encodeRecord(rec)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur := m.vers[rec.ID]; cur != replaces {
		return 0, versionConflict(rec.ID, cur, replaces)
	}
	m.recs[rec.ID] = data
	m.vers[rec.ID] = replaces + 1
	return replaces + 1, nil
}

// Unsettled implements Store.
func (m *Memory) Unsettled(ctx context.Context) ([]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Record
	for id, data := range m.recs {
		rec, err := decodeRecord(data, m.vers[id])
		if err != nil {
			return nil, err
		}
		if !rec.Status.Settled() {
			out = append(out, rec)
		}
	}
	sortRecords(out)
	return out, nil
}

// Close implements Store.
func (m *Memory) Close() error { return nil }

func encodeRecord(rec Record) ([]byte, error) {
	if rec.ID == "" {
		return nil, slotfare.E("coreserve.Put", slotfare.Invalid, slotfare.Field("co_reservation_id"), "a record needs an id")
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, slotfare.E("coreserve.Put", slotfare.Other, err)
	}
	return data, nil
}

func decodeRecord(data []byte, version int64) (Record, error) {
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return Record{}, slotfare.E("coreserve.Get", slotfare.Other, "a stored co-reservation does not decode", err)
	}
	rec.Version = version
	return rec, nil
}

func versionConflict(id string, cur, replaces int64) error {
	return slotfare.E("coreserve.Put", slotfare.Conflict,
		fmt.Sprintf("co-reservation %s is at version %d, not %d: it changed meanwhile", id, cur, replaces))
}

// sortRecords orders records oldest first (then by id), so Recover works in
// a stable order.
func sortRecords(rs []Record) {
	sort.Slice(rs, func(i, j int) bool {
		if !rs[i].CreatedAt.Equal(rs[j].CreatedAt) {
			return rs[i].CreatedAt.Before(rs[j].CreatedAt)
		}
		return rs[i].ID < rs[j].ID
	})
}
