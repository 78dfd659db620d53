package service_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/apikey"
	"slotfare/booking/boltstore"
	"slotfare/booking/catalog"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/embedded"
	"slotfare/booking/lease"
	"slotfare/booking/records"
	"slotfare/booking/service"
	"slotfare/ledger"
)

// faultyStore is a real bbolt store that refuses every batch touching one
// booking: the fault injector for a booking that cannot be stored.
type faultyStore struct {
	booking.Store
	mu     sync.Mutex
	failID string
}

func (f *faultyStore) failFor(id string) {
	f.mu.Lock()
	f.failID = id
	f.mu.Unlock()
}

func (f *faultyStore) Write(ctx context.Context, b booking.Batch) error {
	f.mu.Lock()
	id := f.failID
	f.mu.Unlock()
	for _, r := range b.Bookings {
		if id != "" && r.Booking.ID == id {
			return errors.New("injected: the disk refuses booking " + id)
		}
	}
	return f.Store.Write(ctx, b)
}

// TestTickIsolatesABadBooking is issue 9 #14: an error on one booking used
// to abort its resource's whole tick, every second. Now the others move on,
// the bad one is counted (Options.OnTickError) and retried on later ticks.
func TestTickIsolatesABadBooking(t *testing.T) {
	clk := &clock{t: t0}
	bolt, err := boltstore.Open(t.TempDir(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &faultyStore{Store: bolt}
	var tickErrors atomic.Int64
	svc, err := service.Open(testConfig(), deploytest.Embedded(t, st), service.Options{Now: clk.Now, OnTickError: func(res string) {
		if res == "T" {
			tickErrors.Add(1)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	start := t0.Add(2 * time.Hour)
	ids := commitBudgetHours(t, svc, 3, start)
	// A later hold on the same resource that expires in the same tick.
	late, _, err := svc.Hold(bg, bob, booking.HoldRequest{ResourceID: "T", Start: start.Add(5 * time.Hour), End: start.Add(6 * time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
	if err != nil {
		t.Fatal(err)
	}
	bad := ids[1]
	st.failFor(bad)
	status := func(p booking.Principal, id string) booking.Status {
		t.Helper()
		b, err := svc.Get(bg, p, id)
		if err != nil {
			t.Fatal(err)
		}
		return b.Status
	}
	// Past start + grace, nobody checked in: three no-shows due, one hold
	// long expired.
	clk.Set(start.Add(time.Hour - time.Minute))
	for i := 1; i <= 2; i++ {
		if err := svc.Tick(clk.Now()); err != nil {
			t.Fatalf("tick %d: %v", i, err)
		}
		for _, id := range ids {
			want := booking.NoShow
			if id == bad {
				want = booking.Committed
			}
			if got := status(alice, id); got != want {
				t.Errorf("tick %d: booking %s is %s, want %s", i, id, got, want)
			}
		}
		if got := status(bob, late.ID); got != booking.Expired {
			t.Errorf("tick %d: the hold is %s, want expired", i, got)
		}
		if got := tickErrors.Load(); got != int64(i) {
			t.Errorf("tick %d: %d tick errors counted, want %d", i, got, i)
		}
	}
	// The store takes it again: the next tick settles it too.
	st.failFor("")
	if err := svc.Tick(clk.Now()); err != nil {
		t.Fatal(err)
	}
	if got := status(alice, bad); got != booking.NoShow {
		t.Errorf("after the fault: %s, want no_show", got)
	}
	if got := tickErrors.Load(); got != 2 {
		t.Errorf("after the fault: %d tick errors, want still 2", got)
	}
}

// postingReads counts, by booking, the reads of a booking's record with
// its postings (records.Port.Booking): what a ledger of the booking's
// money is replayed from.
type postingReads struct {
	*embedded.Records
	mu   sync.Mutex
	read map[string]int
}

func (p *postingReads) Booking(ctx context.Context, id string) (records.Stored, []ledger.Posting, bool, error) {
	p.mu.Lock()
	p.read[id]++
	p.mu.Unlock()
	return p.Records.Booking(ctx, id)
}

func (p *postingReads) take() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.read
	p.read = map[string]int{}
	return r
}

// TestTickReadsOnlyTheMoneyItSettles: a tick reads the postings of the
// bookings it settles (a no-show), and none for those it starts or
// completes; what it settles is stored with the booking.
func TestTickReadsOnlyTheMoneyItSettles(t *testing.T) {
	clk := &clock{t: t0}
	inv, inner, keys := inProcess(t)
	recs := &postingReads{Records: inner, read: map[string]int{}}
	ports := &service.Ports{Inventory: inv, Records: recs, Idem: keys, Lease: lease.NewMemory(), Catalog: catalog.NewMemory(), Keys: apikey.NewMemory()}
	svc, err := service.Open(testConfig(), *ports, service.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	start := t0.Add(2 * time.Hour)
	ids := commitBudgetHours(t, svc, 3, start)
	clk.Set(start.Add(-10 * time.Minute))
	for _, id := range ids[:2] {
		must[booking.Booking](t)(svc.CheckIn(bg, alice, id))
	}
	recs.take()
	noShow := ids[2]
	for _, c := range []struct {
		at    time.Time
		reads map[string]int
	}{
		{start.Add(5 * time.Second), map[string]int{}},           // two shows start
		{start.Add(15 * time.Minute), map[string]int{noShow: 1}}, // a no-show at its grace
		{start.Add(time.Hour + time.Second), map[string]int{}},   // the shows complete
	} {
		clk.Set(c.at)
		if err := svc.Tick(c.at); err != nil {
			t.Fatal(err)
		}
		if got := recs.take(); !reflect.DeepEqual(got, c.reads) {
			t.Fatalf("tick at %s read the postings of %v, want %v", c.at.Format(time.TimeOnly), got, c.reads)
		}
	}
	for i, want := range []booking.Status{booking.Completed, booking.Completed, booking.NoShow} {
		if g := must[booking.Booking](t)(svc.Get(bg, alice, ids[i])); g.Status != want || (want == booking.NoShow && (g.Penalty == nil || g.Refund == nil)) {
			t.Fatalf("booking %d: %s, penalty %v, refund %v; want %s", i, g.Status, g.Penalty, g.Refund, want)
		}
	}
}

// commitBudgetHours has alice hold and commit n one-node budget bookings
// of resource T from start for an hour, and answers their ids.
func commitBudgetHours(t *testing.T, svc *service.Service, n int, start time.Time) []string {
	t.Helper()
	var ids []string
	for range n {
		b, _, err := svc.Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		must[booking.Booking](t)(svc.Commit(bg, alice, b.ID))
		ids = append(ids, b.ID)
	}
	return ids
}
