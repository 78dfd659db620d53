package embedded_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/embedded"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// gated is a real bbolt store whose writes, while shut is set, report the
// bookings they carry on entered and wait for release before writing.
type gated struct {
	booking.Store
	shut    atomic.Bool
	entered chan string
	release chan struct{}
}

func (g *gated) Write(ctx context.Context, b booking.Batch) error {
	if g.shut.Load() {
		for _, r := range b.Bookings {
			g.entered <- r.Booking.ID
		}
		<-g.release
	}
	return g.Store.Write(ctx, b)
}

func newGated(t *testing.T) (*gated, *embedded.Ports) {
	st, err := boltstore.Open(t.TempDir(), boltstore.Options{})
	must(t, err)
	t.Cleanup(func() { must(t, st.Close()) })
	g := &gated{Store: st, entered: make(chan string, 64), release: make(chan struct{})}
	return g, openPorts(t, g, embedded.Options{})
}

// TestWritesOverlapInTheStore: Applies on different bookings are in the
// store's Write at the same time (so they can share a group commit); no
// lock is held across it.
func TestWritesOverlapInTheStore(t *testing.T) {
	g, p := newGated(t)
	g.shut.Store(true)
	const n = 6
	errs := make(chan error, n)
	for i := range n {
		r := rec(fmt.Sprintf("bk%d", i), fmt.Sprintf("acct%d", i), "R", booking.Held, t0)
		go func() {
			errs <- p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "h" + r.Booking.ID, Changes: []records.Change{{Record: r}}})
		}()
	}
	in := map[string]bool{}
	for len(in) < n {
		select {
		case id := <-g.entered:
			in[id] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d writes reached the store together: Apply serialises them", len(in), n)
		}
	}
	close(g.release)
	for range n {
		must(t, <-errs)
	}
}

// TestSameBookingWaitsForTheStore: while a commit is in the store, the
// booking reads as before (memory follows the store's answer), and a
// cancel of the same version waits for that answer, then loses.
func TestSameBookingWaitsForTheStore(t *testing.T) {
	g, p := newGated(t)
	held := rec("bk1", "alice", "R", booking.Held, t0)
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "hold", Changes: []records.Change{{Record: held}}}))
	g.shut.Store(true)
	committed, cancelled := held, held
	committed.Booking.Status = booking.Committed
	cancelled.Booking.Status = booking.Cancelled
	commitErr, cancelErr := make(chan error, 1), make(chan error, 1)
	go func() {
		commitErr <- p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "commit", Changes: []records.Change{{Record: committed, Replaces: 1}},
			Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}})
	}()
	if id := <-g.entered; id != "bk1" {
		t.Fatalf("the store got %s", id)
	}
	if s := get(t, p, "bk1"); s.Version != 1 || s.Record.Booking.Status != booking.Held {
		t.Fatalf("a write not yet acknowledged is visible: %+v", s)
	}
	if ps, _ := p.Records.Postings(bg, "alice"); len(ps) != 0 {
		t.Fatalf("a posting not yet acknowledged is visible: %v", ps)
	}
	go func() {
		cancelErr <- p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "cancel", Changes: []records.Change{{Record: cancelled, Replaces: 1}}})
	}()
	select {
	case err := <-cancelErr:
		t.Fatalf("the cancel did not wait for the commit in flight: %v", err)
	case id := <-g.entered:
		t.Fatalf("the cancel of %s reached the store while the commit was in it", id)
	case <-time.After(100 * time.Millisecond):
	}
	// A context that ends stops the wait, with nothing written.
	ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancel()
	if err := p.Records.Apply(ctx, records.Write{Resource: "R", WriteID: "x", Changes: []records.Change{{Record: cancelled, Replaces: 1}}}); slotfare.KindOf(err) != slotfare.Unavailable {
		t.Fatalf("a wait past its context: %v", err)
	}
	close(g.release)
	must(t, <-commitErr)
	if err := <-cancelErr; slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("the cancel after the commit: %v", err)
	}
	if s := get(t, p, "bk1"); s.Version != 2 || s.Record.Booking.Status != booking.Committed {
		t.Fatalf("after both: %+v", s)
	}
}

// TestSameWriteSentTwiceAtOnce: a retry arriving while its first attempt is
// in the store waits for it and answers nil, writing nothing more.
func TestSameWriteSentTwiceAtOnce(t *testing.T) {
	g, p := newGated(t)
	g.shut.Store(true)
	w := records.Write{Resource: "R", WriteID: "once", Changes: []records.Change{{Record: rec("bk1", "alice", "R", booking.Committed, t0)}},
		Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = p.Records.Apply(bg, w) }()
	}
	<-g.entered
	select {
	case <-g.entered:
		t.Fatal("the same write reached the store twice")
	case <-time.After(100 * time.Millisecond):
	}
	close(g.release)
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("the write and its retry: %v", errs)
	}
	if ps, _ := p.Records.Postings(bg, "alice"); len(ps) != 1 || get(t, p, "bk1").Version != 1 {
		t.Fatalf("the retry applied again: %d postings", len(ps))
	}
}

// TestHoldOnItsWayIsNoOrphan: a hold admitted whose record is still in the
// store's Write is held with no record yet; ReleaseOrphans leaves it, and
// once stored it is live and held.
func TestHoldOnItsWayIsNoOrphan(t *testing.T) {
	g, p := newGated(t)
	must(t, p.Inventory.Ensure(bg, "R", 1, 3))
	g.shut.Store(true)
	done := make(chan error, 1)
	go func() {
		w := records.Write{Resource: "R", WriteID: "hbk1", Changes: []records.Change{{Record: rec("bk1", "alice", "R", booking.Held, t0)}}}
		ok, _, err := p.Records.AdmitApply(bg, "R", "bk1", 1, hourOf(1), w, holdClaim("bk1"))
		if err == nil && !ok {
			err = fmt.Errorf("over the hold limits")
		}
		done <- err
	}()
	if id := <-g.entered; id != "bk1" {
		t.Fatalf("the store got %s", id)
	}
	if got, err := p.Inventory.ReleaseOrphans(bg, "R"); err != nil || len(got) != 0 {
		t.Fatalf("a hold on its way to the disk released: %v, %v", got, err)
	}
	close(g.release)
	must(t, <-done)
	if _, found, err := p.Inventory.Get(bg, "R", "bk1"); err != nil || !found {
		t.Fatalf("bk1 held after its write: %v %v", found, err)
	}
}
