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
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/runs"
	"slotfare/booking/service"
)

// TestCompletionRecordsRun: a booking whose hold named a profile has its
// run recorded as the tick completes it (Options.OnComplete, wired to a
// runs store as serve does), from its activation to its end or to its
// checkout; a failure to record leaves it active for the next tick, which
// records it once; a booking without a profile records nothing.
func TestCompletionRecordsRun(t *testing.T) {
	clk := &clock{t: t0}
	st, err := boltstore.Open(t.TempDir(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rst := runs.NewMemory()
	record := runs.RecordCompleted(rst, clk.Now, runs.LimitsOf(config.RunLimits{}))
	var mu sync.Mutex
	failID := "" // the booking whose first record fails
	calls := 0
	svc, err := service.Open(testConfig(), deploytest.Embedded(t, st), service.Options{Now: clk.Now, OnComplete: func(ctx context.Context, b booking.Booking) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if b.ID == failID {
			failID = ""
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
	withProfile, without, early := hold("blast"), hold(""), hold("namd")
	mu.Lock()
	failID = withProfile.ID
	mu.Unlock()
	if _, _, err := svc.Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium", Profile: "a b"}, booking.Idempotency{}); slotfare.FieldOf(err) != "profile" {
		t.Fatalf("a bad profile: %v", err)
	}
	clk.Set(start.Add(-10 * time.Minute))
	for _, b := range []booking.Booking{withProfile, without, early} {
		must[booking.Booking](t)(svc.CheckIn(bg, alice, b.ID))
	}
	if _, err := svc.Checkout(bg, alice, early.ID); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a checkout before the job runs: %v", err)
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
		if c.at.Equal(start.Add(5 * time.Second)) {
			// namd's job ends after 10 minutes: a checkout, twice.
			if g.StartedAt == nil || !g.StartedAt.Equal(start.Add(5*time.Second)) {
				t.Fatalf("started_at %v", g.StartedAt)
			}
			clk.Set(start.Add(10 * time.Minute))
			for range 2 {
				co := must[booking.Booking](t)(svc.Checkout(bg, alice, early.ID))
				if co.Status != booking.Active || co.FinishedAt == nil || !co.FinishedAt.Equal(start.Add(10*time.Minute)) {
					t.Fatalf("checkout: %+v", co)
				}
			}
			if _, err := svc.Checkout(bg, bob, early.ID); slotfare.KindOf(err) != slotfare.NotFound {
				t.Fatalf("bob checks out alice's booking: %v", err)
			}
		}
	}
	if g := must[booking.Booking](t)(svc.Get(bg, alice, without.ID)); g.Status != booking.Completed {
		t.Fatalf("without a profile: %s", g.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 3 {
		t.Fatalf("OnComplete called %d times, want 3 (a failure, then blast's and namd's records)", calls)
	}
	// namd's run lasted from its activation to its checkout.
	if rs, err := rst.Recent(bg, "T", "namd", 10); err != nil || len(rs) != 1 || rs[0].Runtime != 10*time.Minute-5*time.Second ||
		!rs[0].FinishedAt.Equal(start.Add(10*time.Minute)) {
		t.Fatalf("namd's run: %+v %v", rs, err)
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
