package service_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/runs"
	"slotfare/booking/service"
)

// TestCompletionRecordsRun: a booking whose hold named a profile has its
// run recorded as the tick completes it (Options.OnComplete, wired to a
// runs store as serve does); a failure to record leaves it active for the
// next tick, which records it once; a booking without a profile records
// nothing.
func TestCompletionRecordsRun(t *testing.T) {
	clk := &clock{t: t0}
	st, err := boltstore.Open(t.TempDir(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rst := runs.NewMemory()
	record := runs.RecordCompleted(rst, clk.Now)
	var mu sync.Mutex
	fail := true
	calls := 0
	svc, err := service.Open(testConfig(), st, service.Options{Now: clk.Now, OnComplete: func(ctx context.Context, b booking.Booking) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if fail {
			fail = false
			return errors.New("runs store down")
		}
		return record(ctx, b)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })

	start := t0.Add(2 * time.Hour)
	hold := func(profile string) booking.Booking {
		b, _, err := svc.Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium", Profile: profile}, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		if b.Profile != profile {
			t.Fatalf("hold's profile %q, want %q", b.Profile, profile)
		}
		must[booking.Booking](t)(svc.Commit(bg, alice, b.ID))
		return b
	}
	withProfile, without := hold("blast"), hold("")
	if _, _, err := svc.Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium", Profile: "a b"}, booking.Idempotency{}); slotfare.FieldOf(err) != "profile" {
		t.Fatalf("a bad profile: %v", err)
	}
	clk.Set(start.Add(-10 * time.Minute))
	for _, b := range []booking.Booking{withProfile, without} {
		must[booking.Booking](t)(svc.CheckIn(bg, alice, b.ID))
	}
	// Active from the tick 5 s after its start: the run is 3595 s. The
	// first record fails at its end: still active, then completed.
	var active booking.Booking
	for _, c := range []struct {
		at   time.Time
		want booking.Status
	}{{start.Add(5 * time.Second), booking.Active}, {start.Add(time.Hour), booking.Active}, {start.Add(time.Hour + time.Second), booking.Completed}} {
		clk.Set(c.at)
		if err := svc.Tick(c.at); err != nil {
			t.Fatal(err)
		}
		g := must[booking.Booking](t)(svc.Get(bg, alice, withProfile.ID))
		if g.Status != c.want {
			t.Fatalf("at %s: %s, want %s", c.at, g.Status, c.want)
		}
		if g.Status == booking.Active {
			active = g
		}
	}
	if g := must[booking.Booking](t)(svc.Get(bg, alice, without.ID)); g.Status != booking.Completed {
		t.Fatalf("without a profile: %s", g.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 {
		t.Fatalf("OnComplete called %d times, want 2 (a failure, then the record)", calls)
	}
	rs, err := rst.Recent(bg, "T", "blast", 10)
	if err != nil || len(rs) != 1 || rs[0].ID != withProfile.ID || rs[0].Runtime != time.Hour-5*time.Second ||
		!rs[0].FinishedAt.Equal(start.Add(time.Hour)) || rs[0].AccountID != "alice" {
		t.Fatalf("recorded: %+v %v", rs, err)
	}
	// Recording it again (another replica's tick) changes nothing.
	if err := record(bg, active); err != nil {
		t.Fatal(err)
	}
	if rs, _ := rst.Recent(bg, "T", "blast", 10); len(rs) != 1 {
		t.Fatalf("recorded twice: %+v", rs)
	}
}
