package service_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/ledger"
	"slotfare/overbook"
)

// commitNew holds and commits a booking, failing the test on any error.
func (h *harness) commitNew(p booking.Principal, res string, start time.Time, d time.Duration, nodes int, class string) booking.Booking {
	h.t.Helper()
	b, err := h.hold(p, res, start, d, nodes, class)
	if err != nil {
		h.t.Fatal(err)
	}
	c, err := h.svc.Commit(bg, p, b.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

func (h *harness) putNodes(res string, nodes int, currency string) {
	h.t.Helper()
	if _, _, err := putSpec(h.svc, bg, provider, res, resourceSpec{Nodes: nodes, BaseCost: decimal.RequireFromString("0.001"),
		Currency: currency, TimeZone: "UTC"}); err != nil {
		h.t.Fatal(err)
	}
}

// TestFailedModifyKeepsCapacity is issue 9's defect 1: on a 4-node
// resource shrunk to 3 under two committed 2-node bookings, a refused
// enlargement must leave the booking counted, so that nothing more is
// admitted on top; a reduction is still allowed, and after a restart the
// same holds.
func TestFailedModifyKeepsCapacity(t *testing.T) {
	h := newHarness(t, testConfig(resourceConfig("F", 4, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})))
	start := t0.Add(3 * time.Hour)
	a := h.commitNew(alice, "F", start, time.Hour, 2, "premium")
	h.commitNew(bob, "F", start, time.Hour, 2, "premium")
	h.putNodes("F", 3, "GRD")

	three := 3
	_, err := h.svc.Modify(bg, alice, a.ID, booking.ModifyRequest{Nodes: &three})
	wantKind(t, err, slotfare.NoCapacity)
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, a.ID)); g.Nodes != 2 || g.Status != booking.Committed {
		t.Fatalf("after a refused modification: %+v", g)
	}
	_, err = h.hold(bob, "F", start, time.Hour, 1, "premium")
	wantKind(t, err, slotfare.NoCapacity) // 4 nodes held on 3: nothing on top

	// Moving the booking into a free hour is allowed, and gives its old
	// hour back only then.
	later := start.Add(2 * time.Hour)
	laterEnd := later.Add(time.Hour)
	moved, err := h.svc.Modify(bg, alice, a.ID, booking.ModifyRequest{Start: &later, End: &laterEnd})
	if err != nil || !moved.Start.Equal(later) {
		t.Fatalf("move: %+v %v", moved, err)
	}
	must[booking.Booking](t)(h.hold(bob, "F", start, time.Hour, 1, "premium")) // 2 + 1 on 3
	_, err = h.hold(bob, "F", start, time.Hour, 1, "premium")
	wantKind(t, err, slotfare.NoCapacity)

	// On a resource shrunk below what it sold, a reduction is allowed.
	h.putNodes("F", 1, "GRD")
	one := 1
	if _, err := h.svc.Modify(bg, alice, a.ID, booking.ModifyRequest{Nodes: &one}); err != nil {
		t.Fatalf("reduction under an excess: %v", err)
	}
	h.reopen()
	_, err = h.hold(bob, "F", later, time.Hour, 1, "premium")
	wantKind(t, err, slotfare.NoCapacity)
}

// TestModifyKeepsCurrency is issue 9's defect 3: after the resource moves
// from GRD to JPY, modifying a GRD booking is refused; nothing is posted.
func TestModifyKeepsCurrency(t *testing.T) {
	h := newHarness(t, testConfig(resourceConfig("C", 8, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})))
	b := h.commitNew(alice, "C", t0.Add(3*time.Hour), time.Hour, 2, "premium")
	h.putNodes("C", 8, "JPY")
	four := 4
	_, err := h.svc.Modify(bg, alice, b.ID, booking.ModifyRequest{Nodes: &four})
	wantKind(t, err, slotfare.Conflict)
	if n := len(books(t, h.svc).BookingPostings(b.ID)); n != 1 {
		t.Fatalf("%d postings, want the charge only", n)
	}
	for _, p := range books(t, h.svc).BookingPostings(b.ID) {
		if p.Currency != "GRD" {
			t.Fatalf("posting %s in %s", p.ID, p.Currency)
		}
	}
	// Cancelling still settles in the currency it was sold in.
	c := must[booking.Booking](t)(h.svc.Cancel(bg, alice, b.ID))
	if c.Status != booking.Cancelled {
		t.Fatalf("%+v", c)
	}
	for _, p := range books(t, h.svc).BookingPostings(b.ID) {
		if p.Currency != "GRD" {
			t.Fatalf("posting %s in %s", p.ID, p.Currency)
		}
	}
}

// TestNothingSoldForTimeBegun is issue 9's defect 4: a hold cannot be
// committed after its start (it is expired), check-in closes at start +
// grace and never after the end, and Tick expires holds past their start.
func TestNothingSoldForTimeBegun(t *testing.T) {
	rc := resourceConfig("T", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	rc.HoldSeconds = 7200 // holds outlive their start
	h := newHarness(t, testConfig(rc))
	start := t0.Add(10 * time.Minute)
	late := must[booking.Booking](t)(h.hold(alice, "T", start, 20*time.Minute, 1, "premium"))
	h.clk.Set(start.Add(time.Second))
	_, err := h.svc.Commit(bg, alice, late.ID)
	wantKind(t, err, slotfare.Conflict)
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, late.ID)); g.Status != booking.Expired || len(books(t, h.svc).BookingPostings(late.ID)) != 0 {
		t.Fatalf("a hold committed after its start: %+v", g)
	}

	// At the start instant itself a hold can still be committed.
	h.clk.Set(t0)
	atStart := must[booking.Booking](t)(h.hold(alice, "T", t0.Add(time.Hour), time.Hour, 1, "premium"))
	h.clk.Set(t0.Add(time.Hour))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, atStart.ID))

	// Tick expires a hold whose start has passed, though its hold time has not.
	h.clk.Set(t0.Add(2 * time.Hour))
	idle := must[booking.Booking](t)(h.hold(bob, "T", t0.Add(2*time.Hour+5*time.Minute), time.Hour, 1, "premium"))
	h.clk.Set(t0.Add(2*time.Hour + 6*time.Minute))
	if err := h.svc.Tick(h.clk.Now()); err != nil {
		t.Fatal(err)
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, bob, idle.ID)); g.Status != booking.Expired {
		t.Fatalf("a hold past its start after Tick: %+v", g)
	}

	// Check-in after the end of a booking shorter than the grace period.
	h.clk.Set(t0.Add(3 * time.Hour))
	short := h.commitNew(alice, "T", t0.Add(4*time.Hour), 5*time.Minute, 1, "premium")
	h.clk.Set(t0.Add(4*time.Hour + 5*time.Minute)) // its end; grace is 15 minutes
	_, err = h.svc.CheckIn(bg, alice, short.ID)
	wantKind(t, err, slotfare.Conflict)
	h.clk.Set(t0.Add(4*time.Hour + 16*time.Minute))
	if err := h.svc.Tick(h.clk.Now()); err != nil {
		t.Fatal(err)
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, short.ID)); g.Status != booking.NoShow {
		t.Fatalf("a booking checked in after its end: %+v", g)
	}
}

// TestReductionIsPartialCancellation is issue 9's defect 7: shrinking a
// booking and then cancelling it keeps as much as cancelling it whole.
func TestReductionIsPartialCancellation(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(5 * time.Hour)
	whole := h.commitNew(alice, "T", start, time.Hour, 2, "budget") // penalty rate 0.25
	must[booking.Booking](t)(h.svc.Cancel(bg, alice, whole.ID))
	kept := books(t, h.svc).Balance(ledger.CustomerAccount("alice"))["GRD"]
	if !kept.IsPositive() {
		t.Fatalf("cancelling a budget booking kept %s", kept)
	}

	part := h.commitNew(bob, "T", start, time.Hour, 2, "budget")
	one := 1
	m := must[booking.Booking](t)(h.svc.Modify(bg, bob, part.ID, booking.ModifyRequest{Nodes: &one}))
	if !m.Price.Total.LessThan(part.Price.Total) {
		t.Fatalf("price after the reduction %s, before %s", m.Price.Total, part.Price.Total)
	}
	must[booking.Booking](t)(h.svc.Cancel(bg, bob, part.ID))
	// Each penalty is rounded once on its own: they agree to a cent.
	got := books(t, h.svc).Balance(ledger.CustomerAccount("bob"))["GRD"]
	if got.Sub(kept).Abs().GreaterThan(decimal.RequireFromString("0.01")) {
		t.Fatalf("shrink then cancel keeps %s, a plain cancel %s", got, kept)
	}
}

// TestNoHoldThatCannotBeCommitted is issue 9's defect 6: a reservation
// priced below the currency's smallest unit is neither offered nor held
// (422 naming nodes), instead of a hold whose commit always fails.
func TestNoHoldThatCannotBeCommitted(t *testing.T) {
	rc := resourceConfig("Z", 8, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	rc.BaseCost = decimal.RequireFromString("0.0000001")
	h := newHarness(t, testConfig(rc))
	start := t0.Add(time.Hour)
	_, err := h.hold(alice, "Z", start, time.Minute, 1, "premium")
	wantKind(t, err, slotfare.Invalid)
	if f := slotfare.FieldOf(err); f != "nodes" {
		t.Fatalf("field %q, want nodes", f)
	}
	d, n := int64(60), 1
	_, err = h.svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "Z", EarliestStart: start, LatestEnd: start.Add(time.Hour),
		DurationSeconds: &d, Nodes: &n, FareClass: "premium"})
	wantKind(t, err, slotfare.Invalid)

	// Enough node-seconds make a billable price, and it commits.
	b := h.commitNew(alice, "Z", start, 24*time.Hour, 8, "premium")
	if !b.Price.Total.IsPositive() {
		t.Fatalf("%+v", b)
	}
}
