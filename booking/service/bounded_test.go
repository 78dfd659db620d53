package service_test

import (
	"runtime"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/service"
	"slotfare/overbook"
)

// TestReplicaMemoryBoundedByLiveBookings: a replica keeps in memory the
// bookings that hold capacity, not every booking it ever made or read. Over
// 20,000 holds made and cancelled on Redis (where the records live, out of
// this process) the replica's heap stays flat, and a cancelled booking is
// still read back from the store.
func TestReplicaMemoryBoundedByLiveBookings(t *testing.T) {
	const rounds, settle = 20000, 2000
	rc := resourceConfig("C", 4, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	rs := newReplicas(t, 1, testConfig(rc), func(t *testing.T) *service.Ports { return redisPorts(redistest.Start(t)) })
	rs.tickAll(t0)
	s := rs.svcs[0]
	start := t0.Add(2 * time.Hour)
	var first string
	var base uint64
	for i := range rounds {
		if i == settle {
			base = heapInUse()
		}
		b, _, err := s.Hold(bg, alice, booking.HoldRequest{ResourceID: "C", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium"}, booking.Idempotency{})
		if err != nil {
			t.Fatalf("hold %d: %v", i, err)
		}
		if first == "" {
			first = b.ID
		}
		if _, err := s.Cancel(bg, alice, b.ID); err != nil {
			t.Fatalf("cancel %d: %v", i, err)
		}
	}
	if n := s.BookingsKept(); n != 0 {
		t.Errorf("%d bookings kept in memory after every booking was cancelled, want 0", n)
	}
	grown := int64(heapInUse()) - int64(base)
	t.Logf("heap in use grew %.1f MB over %d holds made and cancelled", float64(grown)/(1<<20), rounds-settle)
	if grown > 8<<20 {
		t.Errorf("heap in use grew %.1f MB over %d holds made and cancelled, want it flat (under 8 MB)", float64(grown)/(1<<20), rounds-settle)
	}
	got, err := s.Get(bg, alice, first)
	if err != nil || got.Status != booking.Cancelled {
		t.Fatalf("first booking read back: %+v, %v; want it cancelled", got, err)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
