package service_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/service"
	"slotfare/overbook"
)

// meanTau is what an offer costs per node-second over the base cost.
func meanTau(o booking.Offer, base decimal.Decimal) float64 {
	ns := decimal.NewFromInt(int64(o.Nodes) * (o.End.Unix() - o.Start.Unix()))
	return o.Price.Base.Div(base.Mul(ns)).InexactFloat64()
}

// faresResource is T with 50 nodes, booking control setting its fares
// between 0.5 and 4 when fares is true.
func faresResource(fares bool) config.ResourceConfig {
	rc := resourceConfig("T", 50, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	if fares {
		rc.Limits.Fares = &config.FareBounds{MinTau: decimal.RequireFromString("0.5"), MaxTau: decimal.RequireFromString("4")}
	}
	return rc
}

// budgetOffer is the first offer of budget for an hour, an hour after now.
func budgetOffer(t *testing.T, s *service.Service, now time.Time) booking.Offer {
	t.Helper()
	dur, one := int64(3600), 1
	start := now.Add(time.Hour)
	offs := must[[]booking.Offer](t)(s.Offers(bg, alice, booking.OfferQuery{ResourceID: "T", EarliestStart: start,
		LatestEnd: start.Add(time.Hour), DurationSeconds: &dur, Nodes: &one, FareClass: "budget"}))
	if len(offs) == 0 || offs[0].FareClass != "budget" {
		t.Fatalf("%v: offers %+v", now, offs)
	}
	return offs[0]
}

// budgetUsers runs four days of budget users on s from t0: six an hour,
// who pay at most 1.0, 1.2, ..., 2.0 times the base cost, ask for an hour
// an hour ahead, and book the first offer, through its signed id, when
// they can afford it; tick runs after each hour. It returns the mean tau
// budget sells at on Friday at 08:00 (peak).
func budgetUsers(t *testing.T, s *service.Service, clk *clock, tick func(time.Time)) float64 {
	base := faresResource(false).BaseCost
	for hour := range 4 * 24 {
		now := t0.Add(time.Duration(hour) * time.Hour)
		clk.Set(now)
		for u := range 6 {
			o := budgetOffer(t, s, now)
			if meanTau(o, base) > 1+0.2*float64(u) {
				continue
			}
			b, _, err := s.Hold(bg, alice, booking.HoldRequest{OfferID: o.OfferID}, booking.Idempotency{})
			if err != nil {
				t.Fatal(err)
			}
			if !b.Price.Total.Equal(o.Price.Total) {
				t.Fatalf("held at %v, offered at %v", b.Price.Total, o.Price.Total)
			}
			must[booking.Booking](t)(s.Commit(bg, alice, b.ID))
		}
		tick(now.Add(30 * time.Minute))
	}
	peak := t0.Add(4*24*time.Hour + 2*time.Hour)
	clk.Set(peak)
	return meanTau(budgetOffer(t, s, peak), base)
}

// TestFaresFollowWhatUsersPay: at the configured fares (budget 1.25, 1.75
// and 2.25 by period) budgetUsers' users buy some; with limits.fares the
// quotes and sales are counted and booking control moves budget's fare
// to where they buy: by Friday every period sells budget at 1.5 at most
// (the revenue per user is highest at 1.0-1.2 on this distribution, the
// fitted curve puts it a little above), what was sold kept its price, and
// GET .../limits shows the fare. Without limits.fares the peak stays at
// 2.25 and the report shows no fares.
func TestFaresFollowWhatUsersPay(t *testing.T) {
	run := func(fares bool) float64 {
		h := newHarness(t, testConfig(faresResource(fares)))
		tau := budgetUsers(t, h.svc, h.clk, func(at time.Time) {
			if err := h.svc.Tick(at); err != nil {
				t.Fatal(err)
			}
		})
		rep, seen := h.limits(h.clk.Now()), false
		for _, p := range rep.Periods {
			if p.Period != "peak" {
				continue
			}
			seen = true
			if got, want := p.Fares["budget"], decimal.NewFromFloat(tau).String(); fares && got != want {
				t.Errorf("GET limits shows budget's peak fare %q, it sells at %s", got, want)
			}
			if !fares && p.Fares != nil {
				t.Errorf("GET limits shows fares %v without limits.fares", p.Fares)
			}
		}
		if !seen {
			t.Fatalf("no peak in the limits report %+v", rep)
		}
		return tau
	}
	if got := run(false); got != 2.25 {
		t.Errorf("without limits.fares budget sells at %v at peak, configured 2.25", got)
	}
	got := run(true)
	t.Logf("budget sells at %v at peak after four days", got)
	if got > 1.5 || got < 0.9 {
		t.Errorf("with limits.fares budget sells at %v at peak after four days, want 0.9-1.5", got)
	}
}

// TestFaresAlikeOnEveryReplica: budgetUsers' users query and book on the
// replica that does not hold the ticker lease; both replicas read every
// replica's demand records, so on Friday both sell budget at the same,
// moved fare (shared memory, redis-server, a Redis Cluster).
func TestFaresAlikeOnEveryReplica(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(faresResource(true)), ports)
		holder, other := rs.svcs[0], rs.svcs[1]
		tick := func(at time.Time) {
			for _, s := range rs.svcs {
				if err := s.Tick(at); err != nil {
					t.Fatal(err)
				}
			}
		}
		tick(t0.Add(-time.Hour)) // the holder, first, takes the lease
		got := budgetUsers(t, other, rs.clk, tick)
		tick(rs.clk.Now())
		base := faresResource(true).BaseCost
		if h := meanTau(budgetOffer(t, holder, rs.clk.Now()), base); h != got || got > 1.5 {
			t.Errorf("budget sells at %v on the replica the users used, %v on the lease holder; want equal, at most 1.5", got, h)
		}
	})
}
