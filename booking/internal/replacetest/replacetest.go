// Package replacetest is the contract of the step that moves a booking to
// new terms on the inventory and stores the write that records them, which
// every implementation passes (Redis: one function of the library; in
// process: the inventory's resource locked across the records' write).
package replacetest

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// Step moves booking id to t on layout res and applies w, all or nothing.
type Step func(ctx context.Context, res, id string, t inventory.Terms, w records.Write) error

// Ports are what the contract runs on: an inventory with no resource "R"
// yet, the records, and the step over both.
type Ports struct {
	Inventory inventory.Port
	Records   records.Port
	Replace   Step
}

var bg = context.Background() // a test suite's call: no request's

var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// Run runs the contract on fresh ports from open.
func Run(t *testing.T, open func(t *testing.T) Ports) {
	t.Run("StaleVersionChangesNothing", func(t *testing.T) { stale(t, open(t)) })
	t.Run("NoFitChangesNothing", func(t *testing.T) { noFit(t, open(t)) })
	t.Run("MovesAndStoresTogether", func(t *testing.T) { moves(t, open(t)) })
	t.Run("UnknownBooking", func(t *testing.T) { unknown(t, open(t)) })
}

// hours are the terms of whole hours from t0.
func hours(from, to, nodes int) inventory.Terms {
	return inventory.Terms{Start: t0.Add(time.Duration(from) * time.Hour).Unix(), End: t0.Add(time.Duration(to) * time.Hour).Unix(), Nodes: nodes}
}

// committed is booking id's record on R with terms t over groups.
func committed(id string, groups int, t inventory.Terms) booking.Record {
	price := booking.Price{Base: decimal.RequireFromString("10"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("10"), Currency: "GRD"}
	return booking.Record{Booking: booking.Booking{ID: id, AccountID: "alice", ResourceID: "R", Status: booking.Committed,
		Start: time.Unix(t.Start, 0).UTC(), End: time.Unix(t.End, 0).UTC(), Nodes: t.Nodes, FareClass: "premium", Price: price,
		CreatedAt: t0, UpdatedAt: t0}, Groups: groups}
}

// fullHouse lays R out (2 groups of 4 nodes) with b1 (2 nodes, both
// groups) and b2 (2 nodes, group 0) committed over hours 1-2, each stored
// at version 1: group 0 is full there.
func fullHouse(t *testing.T, p Ports) {
	t.Helper()
	must(t, p.Inventory.Ensure(bg, "R", 2, 4))
	for _, b := range []struct {
		id     string
		groups int
	}{{"b1", 2}, {"b2", 1}} {
		must(t, p.Inventory.Admit(bg, "R", b.id, b.groups, hours(1, 2, 2)))
		must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "made-" + b.id,
			Changes: []records.Change{{Record: committed(b.id, b.groups, hours(1, 2, 2))}}}))
	}
}

// modification is a write of b1 moved to t over version replaces, with a
// posting when posted.
func modification(t *testing.T, wid string, to inventory.Terms, replaces int64, posted bool) records.Write {
	w := records.Write{Resource: "R", WriteID: wid, Changes: []records.Change{{Record: committed("b1", 2, to), Replaces: replaces}}}
	if posted {
		l, err := ledger.New(ledger.Options{})
		must(t, err)
		ps, err := l.Charge(ledger.BookingRef{ID: "b1", Customer: "alice", Resource: "R", Currency: "GRD"}, decimal.RequireFromString("10"), t0)
		must(t, err)
		w.Postings = []ledger.Posting{ps}
	}
	return w
}

// unchanged checks that b1 is as fullHouse left it, at version: held over
// hours 1-2 with 2 nodes, so stored, with no posting, and group 0 full.
func unchanged(t *testing.T, p Ports, version int64) {
	t.Helper()
	h, found, err := p.Inventory.Get(bg, "R", "b1")
	if err != nil || !found || h.Terms != hours(1, 2, 2) {
		t.Fatalf("b1 on the inventory: %+v %v %v", h, found, err)
	}
	st, ps, found, err := p.Records.Booking(bg, "b1")
	if err != nil || !found || st.Version != version || st.Record.Booking.Nodes != 2 || !st.Record.Booking.End.Equal(t0.Add(2*time.Hour)) || len(ps) != 0 {
		t.Fatalf("b1 stored: %+v, postings %v, %v %v", st, ps, found, err)
	}
	for g := range 2 {
		if ok, err := p.Inventory.Fits(bg, "R", g, hours(1, 2, 0).Start, hours(1, 2, 0).End, 2*g+1); err != nil || ok {
			t.Fatalf("group %d has room for %d nodes over hours 1-2: %v %v", g, 2*g+1, ok, err)
		}
	}
}

// stale: a step whose write replaces a version the booking no longer has
// (another change stored meanwhile) is refused as moved, and the inventory
// keeps the terms the record has, though the new ones would fit.
func stale(t *testing.T, p Ports) {
	fullHouse(t, p)
	other := committed("b1", 2, hours(1, 2, 2))
	other.Booking.CheckedIn = true
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "checkin", Changes: []records.Change{{Record: other, Replaces: 1}}}))
	err := p.Replace(bg, "R", "b1", hours(1, 2, 1), modification(t, "m", hours(1, 2, 1), 1, true))
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "booking_id" {
		t.Fatalf("a move over a stale version: %v", err)
	}
	unchanged(t, p, 2)
	if h, _, _ := p.Inventory.Get(bg, "R", "b1"); h.Terms.Nodes != 2 {
		t.Fatalf("b1 holds %d nodes on the inventory after a refused move", h.Terms.Nodes)
	}
}

// noFit: new terms that do not fit (3 nodes where group 0 is full) are
// refused, and neither the inventory nor the record changes.
func noFit(t *testing.T, p Ports) {
	fullHouse(t, p)
	err := p.Replace(bg, "R", "b1", hours(1, 2, 3), modification(t, "m", hours(1, 2, 3), 1, true))
	if slotfare.KindOf(err) != slotfare.NoCapacity {
		t.Fatalf("a move that does not fit: %v", err)
	}
	unchanged(t, p, 1)
}

// moves: a step that fits moves the booking on every group it occupies and
// stores its record and posting together; the same step run again (its
// answer lost) answers nil and changes nothing more.
func moves(t *testing.T, p Ports) {
	fullHouse(t, p)
	to := hours(3, 5, 3)
	w := modification(t, "m", to, 1, true)
	for try := range 2 {
		if err := p.Replace(bg, "R", "b1", to, w); err != nil {
			t.Fatalf("try %d: %v", try, err)
		}
		h, found, err := p.Inventory.Get(bg, "R", "b1")
		if err != nil || !found || h.Terms != to || h.Groups != 2 {
			t.Fatalf("try %d: b1 on the inventory: %+v %v %v", try, h, found, err)
		}
		st, ps, found, err := p.Records.Booking(bg, "b1")
		if err != nil || !found || st.Version != 2 || st.Record.Booking.Nodes != 3 || len(ps) != 1 {
			t.Fatalf("try %d: b1 stored: %+v, postings %v, %v %v", try, st, ps, found, err)
		}
		for g := range 2 {
			if ok, err := p.Inventory.Fits(bg, "R", g, hours(1, 2, 0).Start, hours(1, 2, 0).End, 2+2*g); err != nil || !ok {
				t.Fatalf("try %d: b1's old hours not freed on group %d: %v %v", try, g, ok, err)
			}
			if ok, err := p.Inventory.Fits(bg, "R", g, to.Start, to.End, 2); err != nil || ok {
				t.Fatalf("try %d: group %d has room for 2 beside b1's 3 nodes: %v %v", try, g, ok, err)
			}
		}
	}
}

// unknown: a booking the inventory does not hold is NotFound, and its
// write is not stored.
func unknown(t *testing.T, p Ports) {
	fullHouse(t, p)
	w := records.Write{Resource: "R", WriteID: "m", Changes: []records.Change{{Record: committed("b9", 1, hours(3, 4, 1))}}}
	if err := p.Replace(bg, "R", "b9", hours(3, 4, 1), w); slotfare.KindOf(err) != slotfare.NotFound {
		t.Fatalf("a move of a booking not held: %v", err)
	}
	if _, found, err := p.Records.Get(bg, "b9"); err != nil || found {
		t.Fatalf("the write of a booking not held is stored: %v %v", found, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
