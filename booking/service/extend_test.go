package service_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/service"
	"slotfare/ledger"
	"slotfare/overbook"
	"slotfare/pricing"
)

// running commits nodes of class over [start, start+d) on res for p,
// checks it in and ticks svc to its start: the booking is active.
func running(t *testing.T, svc *service.Service, clk *clock, tick func(time.Time), p booking.Principal, res string, start time.Time, d time.Duration, nodes int) booking.Booking {
	t.Helper()
	b, _, err := svc.Hold(bg, p, booking.HoldRequest{ResourceID: res, Start: start, End: start.Add(d), Nodes: nodes, FareClass: "premium"}, booking.Idempotency{})
	if err != nil {
		t.Fatal(err)
	}
	must[booking.Booking](t)(svc.Commit(bg, p, b.ID))
	clk.Set(start.Add(-30 * time.Minute))
	must[booking.Booking](t)(svc.CheckIn(bg, p, b.ID))
	clk.Set(start)
	tick(start)
	b = must[booking.Booking](t)(svc.Get(bg, p, b.ID))
	if b.Status != booking.Active {
		t.Fatalf("%s is %s, want active", b.ID, b.Status)
	}
	return b
}

func extendTo(svc *service.Service, p booking.Principal, id string, end time.Time) (booking.Booking, error) {
	return svc.Modify(bg, p, id, booking.ModifyRequest{End: &end})
}

func premiumPrice(t *testing.T, nodes int, start, end time.Time) decimal.Decimal {
	t.Helper()
	premium, _ := pricing.FareClassByName(pricing.DemoFareClasses(""), "premium")
	cal, _ := pricing.NewRateCalendar(time.UTC, pricing.DemoRatePeriods())
	rp, err := pricing.PriceReservation(cal, premium, decimal.RequireFromString("0.001"), nodes, start, end)
	if err != nil {
		t.Fatal(err)
	}
	return rp.Rounded(2)
}

// TestExtensionOfARunningBooking: a later end on an active booking extends
// it when its nodes are free, priced in its class over the time added and
// billed as a charge; when they are not, the refusal names end and the
// longest extension that fits (max_end), and nothing changes; an ended
// booking is not extended.
func TestExtensionOfARunningBooking(t *testing.T) {
	h := newHarness(t, testConfig())
	tick := func(at time.Time) {
		if err := h.svc.Tick(at); err != nil {
			t.Fatal(err)
		}
	}
	s := t0.Add(2 * time.Hour)
	b := running(t, h.svc, h.clk, tick, alice, "T", s, time.Hour, 4)
	h.clk.Set(s.Add(10 * time.Minute))

	x := must[booking.Booking](t)(extendTo(h.svc, alice, b.ID, s.Add(2*time.Hour)))
	added := premiumPrice(t, 4, s.Add(time.Hour), s.Add(2*time.Hour))
	if x.Status != booking.Active || !x.End.Equal(s.Add(2*time.Hour)) || !x.Price.Total.Equal(b.Price.Total.Add(added)) {
		t.Fatalf("extended %+v, want end %s and total %s + %s", x, s.Add(2*time.Hour), b.Price.Total, added)
	}
	ps := books(t, h.svc).BookingPostings(b.ID)
	if len(ps) != 2 || ps[1].InvoiceKind() != ledger.KindCharge || !ps[1].CustomerAmount().Equal(added) {
		t.Fatalf("postings %+v, want the charge and the extension's %s", ps, added)
	}
	// The same end again changes nothing (a retried PATCH).
	if again := must[booking.Booking](t)(extendTo(h.svc, alice, b.ID, s.Add(2*time.Hour))); !again.Price.Total.Equal(x.Price.Total) {
		t.Fatalf("retried extension re-priced: %s", again.Price.Total)
	}

	// Bob holds 8 nodes from 2h30: 4 more fit only until then.
	bb := must[booking.Booking](t)(h.hold(bob, "T", s.Add(150*time.Minute), time.Hour, 8, "premium"))
	_, err := extendTo(h.svc, alice, b.ID, s.Add(3*time.Hour))
	wantKind(t, err, slotfare.NoCapacity)
	var xe *service.ExtensionError
	if !errors.As(err, &xe) || !xe.MaxEnd.Equal(s.Add(150*time.Minute)) || slotfare.FieldOf(err) != "end" {
		t.Fatalf("refusal %v (%+v), want max_end %s naming end", err, xe, s.Add(150*time.Minute))
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); !g.End.Equal(x.End) || len(books(t, h.svc).BookingPostings(b.ID)) != 2 {
		t.Fatalf("a refused extension changed the booking: %+v", g)
	}
	must[booking.Booking](t)(extendTo(h.svc, alice, b.ID, xe.MaxEnd))
	must[booking.Booking](t)(h.svc.Cancel(bg, bob, bb.ID))

	// Only a later end: not another start, other nodes or an earlier end.
	start, nodes, early := s.Add(time.Minute), 5, s.Add(time.Hour)
	_, err = h.svc.Modify(bg, alice, b.ID, booking.ModifyRequest{Start: &start})
	wantField(t, err, slotfare.Invalid, "start")
	_, err = h.svc.Modify(bg, alice, b.ID, booking.ModifyRequest{Nodes: &nodes})
	wantField(t, err, slotfare.Invalid, "nodes")
	_, err = extendTo(h.svc, alice, b.ID, early)
	wantField(t, err, slotfare.Invalid, "end")
	_, err = extendTo(h.svc, bob, b.ID, s.Add(4*time.Hour))
	wantKind(t, err, slotfare.NotFound)

	// Ended: completed by the tick at its end.
	h.clk.Set(xe.MaxEnd)
	tick(xe.MaxEnd)
	_, err = extendTo(h.svc, alice, b.ID, s.Add(4*time.Hour))
	wantField(t, err, slotfare.Conflict, "end")
	if n := len(books(t, h.svc).BookingPostings(b.ID)); n != 3 {
		t.Fatalf("%d postings, want the charge and two extensions", n)
	}
}

func wantField(t *testing.T, err error, k slotfare.Kind, field string) {
	t.Helper()
	if slotfare.KindOf(err) != k || slotfare.FieldOf(err) != field {
		t.Fatalf("error %v (kind %v, field %q), want kind %v naming %q", err, slotfare.KindOf(err), slotfare.FieldOf(err), k, field)
	}
}

// TestExtensionRacesAHold: on each of eight resources an active booking's
// extension and another user's hold of the same nodes are sent at once,
// the extension to one replica and the hold to another: exactly one wins
// on every resource, whichever comes first, and the loser changed nothing.
// On the embedded store (bbolt, one service) and on Redis (two replicas).
func TestExtensionRacesAHold(t *testing.T) {
	const n = 8
	var rcs []config.ResourceConfig
	for i := range n {
		rcs = append(rcs, resourceConfig(fmt.Sprintf("R%d", i), 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF}))
	}
	cfg := testConfig(rcs...)
	race := func(t *testing.T, ext, hold *service.Service, clk *clock, tick func(time.Time)) {
		s := t0.Add(2 * time.Hour)
		tick(t0)
		var bs []booking.Booking
		for i := range n {
			clk.Set(t0)
			bs = append(bs, running(t, ext, clk, tick, alice, fmt.Sprintf("R%d", i), s, time.Hour, 4))
		}
		clk.Set(s.Add(time.Minute))
		var wg sync.WaitGroup
		extErr, holdErr := make([]error, n), make([]error, n)
		gate := make(chan struct{})
		for i := range n {
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-gate
				_, extErr[i] = extendTo(ext, alice, bs[i].ID, s.Add(2*time.Hour))
			}()
			go func() {
				defer wg.Done()
				<-gate
				_, _, holdErr[i] = hold.Hold(bg, bob, booking.HoldRequest{ResourceID: fmt.Sprintf("R%d", i), Start: s.Add(time.Hour),
					End: s.Add(2 * time.Hour), Nodes: 7, FareClass: "premium"}, booking.Idempotency{})
			}()
		}
		close(gate)
		wg.Wait()
		won := 0
		for i := range n {
			if extErr[i] == nil {
				won++
			}
			if (extErr[i] == nil) == (holdErr[i] == nil) {
				t.Fatalf("R%d: extension %v, hold %v: want exactly one to win", i, extErr[i], holdErr[i])
			}
			lost := extErr[i]
			if lost == nil {
				lost = holdErr[i]
			}
			wantKind(t, lost, slotfare.NoCapacity)
			g := must[booking.Booking](t)(ext.Get(bg, alice, bs[i].ID))
			if want := map[bool]time.Time{true: s.Add(2 * time.Hour), false: s.Add(time.Hour)}[extErr[i] == nil]; !g.End.Equal(want) {
				t.Fatalf("R%d: the booking ends %s, want %s", i, g.End, want)
			}
		}
		t.Logf("extensions won on %d of %d resources, holds on the rest", won, n)
	}
	t.Run("embedded", func(t *testing.T) {
		h := newHarness(t, cfg)
		race(t, h.svc, h.svc, h.clk, func(at time.Time) {
			if err := h.svc.Tick(at); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("redis", func(t *testing.T) {
		rs := newReplicas(t, 2, cfg, sharedPorts[1].make)
		race(t, rs.svcs[0], rs.svcs[1], rs.clk, rs.tickAll)
	})
}
