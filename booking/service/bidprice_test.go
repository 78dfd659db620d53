package service_test

import (
	"github.com/shopspring/decimal"

	"strings"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/service"
	"slotfare/overbook"
	"slotfare/pricing"
)

// TestBidPriceTakesWhatCoversItsDisplacement: T's peaks from Monday to
// Wednesday held premium 4 and business 6 of its 10 nodes; then the
// provider cuts it to 8, so the forecast no longer fits and the peak's bid
// price is business's fare, while the super saver, never asked for, has
// none. A budget request of the peak alone is offered business instead and
// refused when held as budget; one of six super-saver hours and one peak
// hour covers the hour it displaces and is sold in budget, which closing
// budget for the peak (per-period limits) would refuse.
func TestBidPriceTakesWhatCoversItsDisplacement(t *testing.T) {
	rc := resourceConfig("T", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	rc.Limits.Method = pricing.BidPrice
	cfg := testConfig(rc)
	h := newHarness(t, cfg)
	h.clk.Set(t0.Add(-time.Hour))
	h.reopen()
	day := 24 * time.Hour
	for d := range 3 {
		start := t0.Add(time.Duration(d) * day)
		h.clk.Set(start.Add(-time.Hour))
		for class, nodes := range map[string]int{"premium": 4, "business": 6} {
			b := must[booking.Booking](t)(h.hold(alice, "T", start, 12*time.Hour, nodes, class))
			must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
		}
	}
	thursday := t0.Add(3*day - 5*time.Hour) // Thursday 01:00
	h.clk.Set(thursday)
	h.cfg.Resources[0].Nodes = 8
	h.reopen()
	for range 2 {
		if err := h.svc.Tick(h.clk.Now()); err != nil {
			t.Fatal(err)
		}
	}
	friday := t0.Add(4*day - 6*time.Hour) // Friday 00:00
	rep := h.limits(friday)
	bids := map[string]string{}
	for _, p := range rep.Periods {
		bids[p.Period] = p.BidPrice
		if p.BookingLimits["budget"] != p.OverbookingLimit {
			t.Errorf("%s: budget's limit %d, want every class open to %d", p.Period, p.BookingLimits["budget"], p.OverbookingLimit)
		}
	}
	business := pricing.DemoFareClasses("")[1].Tau[pricing.PeriodPeak]
	if bids[pricing.PeriodPeak] != business.String() || bids[pricing.PeriodSuperSaver] != "0" {
		t.Fatalf("bid prices %v, want peak at business's %s and super saver 0 (report %s)", bids, business, reportJSON(t, rep))
	}
	offers := func(start, end time.Time) []booking.Offer {
		d, n := int64(end.Sub(start)/time.Second), 2
		return must[[]booking.Offer](t)(h.svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "T", EarliestStart: start,
			LatestEnd: end, DurationSeconds: &d, Nodes: &n, FareClass: "budget"}))
	}
	peak := friday.Add(8 * time.Hour)
	up := offers(peak, peak.Add(time.Hour))
	if len(up) == 0 || up[0].FareClass != "business" || up[0].RequestedFareClass != "budget" {
		t.Fatalf("budget for a peak hour: offers %+v, want business upgrading budget", up)
	}
	_, err := h.hold(alice, "T", peak, time.Hour, 2, "budget")
	wantKind(t, err, slotfare.Conflict)
	if slotfare.FieldOf(err) != "fare_class" || !strings.Contains(err.Error(), "bid prices") {
		t.Fatalf("refusal %v: want fare_class named, bid prices said", err)
	}
	long := offers(friday, friday.Add(7*time.Hour))
	if len(long) == 0 || long[0].FareClass != "budget" || long[0].RequestedFareClass != "" {
		t.Fatalf("budget over six super-saver hours and a peak hour: offers %+v, want budget", long)
	}
	b, _, err := h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: long[0].OfferID}, booking.Idempotency{})
	if err != nil {
		t.Fatal(err)
	}
	if b.FareClass != "budget" || !b.Price.Base.Equal(long[0].Price.Base) {
		t.Fatalf("held %s at %s, offered budget at %s", b.FareClass, b.Price.Base, long[0].Price.Base)
	}
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	// A move is sold anew: an hour later still covers, the peak alone not.
	later, laterEnd := friday.Add(time.Hour), friday.Add(8*time.Hour)
	if _, err := h.svc.Modify(bg, alice, b.ID, booking.ModifyRequest{Start: &later, End: &laterEnd}); err != nil {
		t.Fatalf("moved an hour later: %v", err)
	}
	peakEnd := peak.Add(time.Hour)
	_, err = h.svc.Modify(bg, alice, b.ID, booking.ModifyRequest{Start: &peak, End: &peakEnd})
	wantKind(t, err, slotfare.Conflict)
	if slotfare.FieldOf(err) != "start" {
		t.Fatalf("move onto the peak: %v, want start named", err)
	}
	// Started (checked in), it may be extended only where the time added
	// covers its bid prices: an hour more of peak does not.
	h.clk.Set(later.Add(-30 * time.Minute)) // check-in opens an hour before
	must[booking.Booking](t)(h.svc.CheckIn(bg, alice, b.ID))
	h.clk.Set(friday.Add(2 * time.Hour))
	longer := laterEnd.Add(time.Hour)
	_, err = h.svc.Modify(bg, alice, b.ID, booking.ModifyRequest{End: &longer})
	wantKind(t, err, slotfare.Conflict)
	if slotfare.FieldOf(err) != "end" || !strings.Contains(err.Error(), "bid prices") {
		t.Fatalf("extension into the peak: %v, want end named", err)
	}
}

// TestReplicasShareBidPrices: under bid-price control each replica decides
// with its own booking control's bid prices, so one without the ticker
// lease follows the stored change log as the holder does. T's peaks on
// Tuesday and Wednesday hold premium 4, business 3 and budget 3 of its 10
// nodes; on Wednesday evening T is cut to 6 (every replica lays itself out
// anew from the stored history), which puts the peak's bid price at
// business's fare, and Thursday's peak holds business 2, booked through
// replica 0 alone. On Friday both replicas price the peak at budget's fare
// (premium 2.7 and business 2.7 fit, budget 2 does not), and replica 1
// sells budget there; from Tuesday and Wednesday alone it would have
// priced it at business's (premium 4 and business 3) and refused.
func TestReplicasShareBidPrices(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("T", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rc.Limits.Method = pricing.BidPrice
		rs := newReplicas(t, 2, testConfig(rc), ports)
		day := 24 * time.Hour
		book := func(d int, nodes map[string]int) {
			start := t0.Add(time.Duration(d) * day)
			rs.clk.Set(start.Add(-time.Hour))
			rs.tickAll(rs.clk.Now())
			for class, n := range nodes {
				b, _, err := rs.svcs[0].Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(12 * time.Hour),
					Nodes: n, FareClass: class}, booking.Idempotency{})
				if err != nil {
					t.Fatal(err)
				}
				must[booking.Booking](t)(rs.svcs[0].Commit(bg, alice, b.ID))
			}
		}
		book(1, map[string]int{"premium": 4, "business": 3, "budget": 3})
		book(2, map[string]int{"premium": 4, "business": 3, "budget": 3})
		rs.clk.Set(t0.Add(2*day + 14*time.Hour)) // Wednesday 20:00
		spec := resourceSpec{Nodes: 6, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC"}
		if _, _, err := putSpec(rs.svcs[0], bg, provider, "T", spec); err != nil {
			t.Fatal(err)
		}
		rs.tickAll(rs.clk.Now())
		book(3, map[string]int{"business": 2})
		friday := t0.Add(4*day - 6*time.Hour)
		rs.clk.Set(friday.Add(time.Hour))
		for range 2 {
			rs.tickAll(rs.clk.Now())
		}
		budget := pricing.DemoFareClasses("")[2].Tau[pricing.PeriodPeak].String()
		peak := friday.Add(8 * time.Hour)
		for i, s := range rs.svcs {
			rep := must[control.LimitsReport](t)(s.Limits(bg, provider, "T", peak, peak.Add(time.Hour)))
			if got := rep.Periods[0].BidPrice; got != budget {
				t.Fatalf("replica %d: peak bid price %q, want budget's %s (report %s)", i, got, budget, reportJSON(t, rep))
			}
		}
		_, _, err := rs.svcs[1].Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: peak, End: peak.Add(time.Hour), Nodes: 1,
			FareClass: "budget"}, booking.Idempotency{})
		if err != nil {
			t.Fatalf("budget at the peak on replica 1: %v", err)
		}
	})
}
