// Package memstore is a booking.Store that keeps everything in the process's
// memory: no file, no fsync. It serves the simulator (`slotfare simulate`
// runs the real booking service on it under a virtual clock, where a disk
// sync per step would measure the disk, not the engine) and tests.
//
// What "durable" means here: a batch is stored whole when Write returns and
// survives Close; a store reopened on the same Memory (Reopen) loads it, as
// a process restarted on the same data directory would. Nothing survives the
// process.
package memstore

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/events"
	"slotfare/ledger"
)

// Memory is the data one or more successive stores share: what a data
// directory is to the file stores.
type Memory struct {
	mu        sync.Mutex
	open      bool // a Store is open on it
	bookings  []booking.Record
	index     map[string]int // booking id -> position in bookings
	postings  []ledger.Posting
	resources []booking.ResourceRecord
	resIndex  map[string]int
	refusals  []booking.RefusalRecord
	keys      []booking.KeyRecord
	keyIndex  map[string]int
	demand    booking.DemandBook
	secret    []byte
	events    events.Log
	// unlogged keeps no event log: Write drops the batches' events
	// unread (Unlogged).
	unlogged bool
}

// NewMemory returns empty data for a store.
func NewMemory() *Memory {
	return &Memory{index: map[string]int{}, resIndex: map[string]int{}, keyIndex: map[string]int{}, demand: booking.DemandBook{}}
}

// Unlogged returns a store on fresh, empty memory that keeps no event log:
// ReadEvents finds nothing and the writers need not encode events for it
// (KeepsNoEvents). The simulator stores on it: nothing reads the log of a
// simulated run, and decoding it cost a tenth of a simulated day.
func Unlogged() *Store {
	m := NewMemory()
	m.unlogged = true
	s, _ := Open(m)
	return s
}

// KeepsNoEvents reports whether the store drops the events written to it
// (Unlogged), so that a writer may leave them out of its batches.
func (s *Store) KeepsNoEvents() bool { return s.m.unlogged }

// Store is a booking.Store on a Memory. It is safe for concurrent use.
type Store struct {
	m      *Memory
	mu     sync.Mutex
	closed bool
}

var _ booking.Store = (*Store)(nil)

// New returns a store on fresh, empty memory.
func New() *Store {
	s, _ := Open(NewMemory())
	return s
}

// Open returns a store on m, as opening a file store on its directory. Like
// the file stores' directory lock, one store at a time: a second Open before
// the first is closed is a Conflict.
func Open(m *Memory) (*Store, error) {
	if m == nil {
		return nil, slotfare.E(slotfare.Op("memstore.Open"), slotfare.Invalid, slotfare.Field("memory"), "memory is required")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.open {
		return nil, slotfare.E(slotfare.Op("memstore.Open"), slotfare.Conflict, "another store is open on this memory")
	}
	m.open = true
	return &Store{m: m}, nil
}

// Memory is the data the store keeps, to Open again after Close.
func (s *Store) Memory() *Memory { return s.m }

// Load implements booking.Store: the latest record of every booking in the
// order each was first written, every posting and refusal in the order
// appended, every resource, the secret. The slices are copies the caller may
// change (service.Open sorts the bookings in place).
func (s *Store) Load(ctx context.Context) (booking.State, error) {
	const op slotfare.Op = "memstore.Load"
	if err := ctx.Err(); err != nil {
		return booking.State{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return booking.State{}, slotfare.E(op, slotfare.Unavailable, "the store is closed")
	}
	m := s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	return booking.State{
		Bookings:  slices.Clone(m.bookings),
		Postings:  slices.Clone(m.postings),
		Resources: slices.Clone(m.resources),
		Refusals:  slices.Clone(m.refusals),
		Keys:      slices.Clone(m.keys),
		Demand:    m.demand.All(),
		Secret:    slices.Clone(m.secret),
	}, nil
}

// Write implements booking.Store: the batch is applied whole under one lock,
// so it is all there or (closed store, cancelled context) none of it.
// NoWait changes nothing: every write is done when it returns.
func (s *Store) Write(ctx context.Context, b booking.Batch) error {
	const op slotfare.Op = "memstore.Write"
	if err := ctx.Err(); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return slotfare.E(op, slotfare.Unavailable, "the store is closed")
	}
	m := s.m
	if !m.unlogged {
		evs, err := decodeEvents(b.Events)
		if err != nil {
			return slotfare.E(op, slotfare.Invalid, slotfare.Field("events"), err.Error())
		}
		m.mu.Lock()
		m.events.Add(evs)
	} else {
		m.mu.Lock()
	}
	defer m.mu.Unlock()
	for _, r := range b.Bookings {
		if i, ok := m.index[r.Booking.ID]; ok {
			m.bookings[i] = r
			continue
		}
		m.index[r.Booking.ID] = len(m.bookings)
		m.bookings = append(m.bookings, r)
	}
	m.postings = append(m.postings, b.Postings...)
	for _, r := range b.Resources {
		if i, ok := m.resIndex[r.ID]; ok {
			m.resources[i] = r
			continue
		}
		m.resIndex[r.ID] = len(m.resources)
		m.resources = append(m.resources, r)
	}
	m.refusals = append(m.refusals, b.Refusals...)
	for _, w := range b.Demand {
		m.demand.Count(w)
	}
	for _, k := range b.Keys {
		if i, ok := m.keyIndex[k.Name]; ok {
			m.keys[i] = k
			continue
		}
		m.keyIndex[k.Name] = len(m.keys)
		m.keys = append(m.keys, k)
	}
	if b.Secret != nil {
		m.secret = slices.Clone(b.Secret)
	}
	return nil
}

// Close implements booking.Store: later Writes and Loads fail; the data
// stays in the Memory for the next Open. Closing twice is nil.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.m.mu.Lock()
	s.m.open = false
	s.m.mu.Unlock()
	return nil
}

func decodeEvents(raw [][]byte) ([]events.Event, error) {
	out := make([]events.Event, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReadEvents implements events.Reader: the log is one sequence.
func (s *Store) ReadEvents(ctx context.Context, streams []string, after events.Cursor, limit int) ([]events.Logged, error) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.m.events.Read(after, limit), nil
}

// KeepEvents implements events.Keeper.
func (s *Store) KeepEvents(n int) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.m.events.Keep(n)
}
