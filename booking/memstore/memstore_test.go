package memstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/events"
	"slotfare/booking/internal/storetest"
	"slotfare/booking/memstore"
	"slotfare/booking/service"
)

// opener maps each directory the contract suite uses to one Memory, so
// "close and reopen the directory" is Close and Open on the same data.
func opener() storetest.Opener {
	var mu sync.Mutex
	mems := map[string]*memstore.Memory{}
	return func(dir string) (booking.Store, error) {
		mu.Lock()
		m := mems[dir]
		if m == nil {
			m = memstore.NewMemory()
			mems[dir] = m
		}
		mu.Unlock()
		return memstore.Open(m)
	}
}

func TestContract(t *testing.T) { storetest.Run(t, opener()) }

// TestOneStoreAtATime: like a data directory's lock, a second store on the
// same memory is refused until the first is closed.
func TestOneStoreAtATime(t *testing.T) {
	s := memstore.New()
	if _, err := memstore.Open(s.Memory()); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("second open: %v, want a conflict", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := memstore.Open(s.Memory())
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
}

// TestServiceRestart runs the real booking service on the store: a
// committed booking and its charge are there after the service closes and
// opens again on the same memory, and the refusal-free demo ledger replays.
func TestServiceRestart(t *testing.T) {
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC) // a Monday
	clock := func() time.Time { return now }
	st := memstore.New()
	svc, err := service.Open(cfg, deploytest.Embedded(t, st), service.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	alice := booking.Principal{AccountID: "alice", Role: booking.RoleUser, VO: "1"}
	start := now.Add(2 * time.Hour)
	b, _, err := svc.Hold(ctx, alice, booking.HoldRequest{ResourceID: "RAL", Start: start, End: start.Add(time.Hour), Nodes: 2, FareClass: "business"}, booking.Idempotency{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Commit(ctx, alice, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := memstore.Open(st.Memory())
	if err != nil {
		t.Fatal(err)
	}
	svc2, err := service.Open(cfg, deploytest.Embedded(t, st2), service.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer svc2.Close()
	got, err := svc2.Get(ctx, alice, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != booking.Committed || !got.Price.Total.Equal(b.Price.Total) {
		t.Fatalf("after restart: %s at %s, want committed at %s", got.Status, got.Price.Total, b.Price.Total)
	}
	l, err := svc2.Ledger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 1 {
		t.Fatalf("ledger has %d postings after restart, want the one charge", l.Len())
	}
}

// TestUnlogged: the service on an unlogged store keeps its bookings as on
// a logged one, but the store's event log stays empty where the logged
// store's has the booking's events.
func TestUnlogged(t *testing.T) {
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	ctx := context.Background()
	alice := booking.Principal{AccountID: "alice", Role: booking.RoleUser, VO: "1"}
	for _, tt := range []struct {
		name     string
		st       *memstore.Store
		unlogged bool
	}{{"logged", memstore.New(), false}, {"unlogged", memstore.Unlogged(), true}} {
		if got := tt.st.KeepsNoEvents(); got != tt.unlogged {
			t.Errorf("%s: KeepsNoEvents %v, want %v", tt.name, got, tt.unlogged)
		}
		svc, err := service.Open(cfg, deploytest.Embedded(t, tt.st), service.Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		start := now.Add(2 * time.Hour)
		b, _, err := svc.Hold(ctx, alice, booking.HoldRequest{ResourceID: "RAL", Start: start, End: start.Add(time.Hour), Nodes: 2, FareClass: "business"}, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Commit(ctx, alice, b.ID); err != nil {
			t.Fatal(err)
		}
		st, err := tt.st.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Bookings) != 1 || st.Bookings[0].Booking.Status != booking.Committed {
			t.Errorf("%s: stored %d bookings, want the one committed", tt.name, len(st.Bookings))
		}
		evs, err := tt.st.ReadEvents(ctx, nil, events.Cursor{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		if tt.unlogged && len(evs) != 0 || !tt.unlogged && len(evs) < 2 {
			t.Errorf("%s: %d events logged", tt.name, len(evs))
		}
		svc.Close()
	}
}
