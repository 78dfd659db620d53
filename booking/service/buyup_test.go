package service_test

import (
	"strings"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/service"
)

// TestBuyUpOffersMarkedAndRefusedWhenClosed: on the demo's RAL at peak,
// with budget full, a budget query's offers are in business and carry
// RequestedFareClass "budget" (seed 004 Sec. 7.4); a query without a class
// gets business unmarked; offers in the class asked are unmarked. A held
// buy-up offer whose business class filled meanwhile is NoCapacity naming
// "business", and business stays at its nested limit.
func TestBuyUpOffersMarkedAndRefusedWhenClosed(t *testing.T) {
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	start := t0.Add(2 * time.Hour) // 08:00 London, a Monday: peak
	limits := func() control.LimitsReportPeriod {
		rep := must[control.LimitsReport](t)(h.svc.Limits(bg, provider, "RAL", start, start.Add(time.Hour)))
		if len(rep.Periods) != 1 {
			t.Fatalf("report %+v", rep)
		}
		return rep.Periods[0]
	}
	lp := limits()
	b2, b3 := lp.BookingLimits["business"], lp.BookingLimits["budget"]
	if b3 <= 0 || b2 <= b3 {
		t.Fatalf("limits %+v", lp)
	}
	commit := func(class string, nodes int) {
		b := must[booking.Booking](t)(h.hold(alice, "RAL", start, time.Hour, nodes, class))
		must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	}
	offers := func(class string) []booking.Offer {
		d, n := int64(3600), 1
		offs := must[[]booking.Offer](t)(h.svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "RAL", EarliestStart: start,
			LatestEnd: start.Add(time.Hour), DurationSeconds: &d, Nodes: &n, FareClass: class}))
		if len(offs) == 0 {
			t.Fatalf("no offers for %q", class)
		}
		return offs
	}
	for _, o := range offers("budget") {
		if o.FareClass != "budget" || o.RequestedFareClass != "" {
			t.Fatalf("budget open: %s requested %q", o.FareClass, o.RequestedFareClass)
		}
	}
	commit("budget", b3)
	up := offers("budget")
	for _, o := range up {
		if o.FareClass != "business" || o.RequestedFareClass != "budget" {
			t.Fatalf("budget closed: %s requested %q, want business upgrading budget", o.FareClass, o.RequestedFareClass)
		}
	}
	for _, o := range offers("") {
		if o.FareClass != "business" || o.RequestedFareClass != "" {
			t.Fatalf("no class asked: %s requested %q, want business", o.FareClass, o.RequestedFareClass)
		}
	}
	commit("business", b2-b3)
	_, _, err = h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: up[0].OfferID}, booking.Idempotency{})
	wantKind(t, err, slotfare.NoCapacity)
	if !strings.Contains(err.Error(), `fare class "business"`) {
		t.Fatalf("refusal %q does not name business", err)
	}
	if got := limits().Bookings; got["business"] != b2-b3 || got["budget"] != b3 {
		t.Fatalf("bookings %v, want business %d budget %d", got, b2-b3, b3)
	}
}

// TestBuyUpCountedInTheDemandRecords: on the demo's RAL at peak, with
// budget full, a budget user holds the business offer it was made (through
// its signed id): the demand records count one request for budget refused
// closed and bought up to business, so budget's estimated sell-up is all
// to business (SellUp, no prior weight). The code before counted no
// buy-up at all: every sell-up estimate stayed the configured value.
func TestBuyUpCountedInTheDemandRecords(t *testing.T) {
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	start := t0.Add(2 * time.Hour) // 08:00 London, a Monday: peak
	rep := must[control.LimitsReport](t)(h.svc.Limits(bg, provider, "RAL", start, start.Add(time.Hour)))
	b := must[booking.Booking](t)(h.hold(alice, "RAL", start, time.Hour, rep.Periods[0].BookingLimits["budget"], "budget"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	d, n := int64(3600), 1
	offs := must[[]booking.Offer](t)(h.svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "RAL", EarliestStart: start,
		LatestEnd: start.Add(time.Hour), DurationSeconds: &d, Nodes: &n, FareClass: "budget"}))
	if len(offs) == 0 || offs[0].RequestedFareClass != "budget" {
		t.Fatalf("want budget's offers moved up, got %+v", offs)
	}
	if _, _, err := h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: offs[0].OfferID}, booking.Idempotency{}); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.Tick(h.clk.Now()); err != nil {
		t.Fatal(err)
	}
	su := must[map[string]service.SellUpEstimate](t)(h.svc.SellUp("RAL", 0))
	if got := su["budget"]; got.Refused != 1 || got.BoughtUp != 1 || got.Probability != 1 || got.To["business"] != 1 {
		t.Errorf("budget's sell-up %+v, want 1 refused, 1 bought up to business", got)
	}
}
