package coreserve

import (
	"context"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
)

// dying is Bookings whose broker dies after committing its first part:
// every later Commit fails as a lost connection would (Unavailable), so
// the record stays committing with one part committed, as after a kill -9
// between two part commits.
type dying struct {
	Bookings
	commits int
}

func (d *dying) Commit(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	d.commits++
	if d.commits > 1 {
		return booking.Booking{}, slotfare.E(slotfare.Op("test"), slotfare.Unavailable, "the broker died")
	}
	return d.Bookings.Commit(ctx, p, id)
}

// halfCommitted reserves two parts and commits them through a dying
// broker; it returns the co-reservation's id with part 0 committed, part 1
// held, the record committing, and the broker reopened on the same records.
func halfCommitted(t *testing.T, r *rig) string {
	t.Helper()
	ctx := context.Background()
	d := &dying{Bookings: r.svc}
	r.st.Close()
	r.open(t, d)
	v, err := r.br.Reserve(ctx, alice, Request{Policy: Earliest, Parts: []Part{
		part("RAL", 2, r.at(9), r.at(10), time.Hour), part("CERN", 2, r.at(9), r.at(10), time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.br.Commit(ctx, alice, v.ID); slotfare.KindOf(err) != slotfare.Unavailable {
		t.Fatalf("the dying commit answered %v", err)
	}
	st := r.statuses(t, v)
	if st[0] == st[1] {
		t.Fatalf("parts %v: want one committed, one held", st)
	}
	// The process is gone: a new broker opens the same records.
	r.st.Close()
	r.open(t, r.svc)
	rec, found, err := r.st.Get(ctx, v.ID)
	if err != nil || !found || rec.Status != Committing {
		t.Fatalf("stored record: %v %v %+v", err, found, rec)
	}
	return v.ID
}

func TestRecoverRollsForward(t *testing.T) {
	r := newRig(t)
	id := halfCommitted(t, r)
	n, err := r.br.Recover(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("recover: %d %v", n, err)
	}
	v, err := r.br.Get(context.Background(), alice, id)
	if err != nil || v.Status != Committed || !all(r.statuses(t, v), booking.Committed) {
		t.Fatalf("after recover: %v %s %v", err, v.Status, r.statuses(t, v))
	}
}

func TestRecoverRollsBackWhenAHoldLapsed(t *testing.T) {
	r := newRig(t)
	id := halfCommitted(t, r)
	// The broker stayed down past the other part's hold.
	r.clk.add(11 * time.Minute)
	if err := r.svc.Tick(r.clk.now()); err != nil {
		t.Fatal(err)
	}
	n, err := r.br.Recover(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("recover: %d %v", n, err)
	}
	v, err := r.br.Get(context.Background(), alice, id)
	if err != nil || v.Status != Expired {
		t.Fatalf("after recover: %v %s", err, v.Status)
	}
	for i, s := range r.statuses(t, v) {
		if s == booking.Committed || s == booking.Held {
			t.Fatalf("part %d is still %s: half committed", i, s)
		}
	}
	// The part committed before the broker died is refunded in full.
	if o := owes(t, r.svc); !o.IsZero() {
		t.Fatalf("alice owes %s for an expired co-reservation", o)
	}
}

func TestRecoverWaitsForALiveBroker(t *testing.T) {
	r := newRig(t)
	id := halfCommitted(t, r)
	r.br = New(r.svc, r.st, Options{Now: r.clk.now, RecoverAfter: time.Minute})
	if n, err := r.br.Recover(context.Background()); err != nil || n != 0 {
		t.Fatalf("recover within RecoverAfter: %d %v, want nothing done", n, err)
	}
	r.clk.add(time.Minute)
	v, err := r.br.Get(context.Background(), alice, id) // settles at read time once due
	if err != nil || v.Status != Committed {
		t.Fatalf("get after RecoverAfter: %v %s", err, v.Status)
	}
}

// unreadable is Bookings whose reads fail as a lost connection would.
type unreadable struct{ Bookings }

func (unreadable) Get(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	return booking.Booking{}, slotfare.E(slotfare.Op("test"), slotfare.Unavailable, "the connection is lost")
}

// TestRecoverClaimsWhatItReads: two brokers on one store tick together; the
// first takes the due co-reservation and fails to settle it, and the second
// passes it by until the first's claim lapses, then settles it.
func TestRecoverClaimsWhatItReads(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	v, err := r.br.Reserve(ctx, alice, Request{Policy: Earliest, Parts: []Part{
		part("RAL", 2, r.at(9), r.at(10), time.Hour), part("CERN", 2, r.at(9), r.at(10), time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	failing := New(unreadable{r.svc}, r.st, Options{Now: r.clk.now, RecoverAfter: -1})
	r.clk.add(10 * time.Minute) // the holds' time is over
	if n, err := failing.Recover(ctx); slotfare.KindOf(err) != slotfare.Unavailable || n != 0 {
		t.Fatalf("the failing broker's tick: %d %v, want nothing done and Unavailable", n, err)
	}
	if n, err := r.br.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("a tick while another broker claims it: %d %v, want it passed by", n, err)
	}
	r.clk.add(claimFor)
	if n, err := r.br.Recover(ctx); err != nil || n != 1 {
		t.Fatalf("a tick once the claim lapsed: %d %v, want it settled", n, err)
	}
	if rec, _, err := r.st.Get(ctx, v.ID); err != nil || rec.Status != Expired {
		t.Fatalf("after: %v %s", err, rec.Status)
	}
}
