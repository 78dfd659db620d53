package control

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/pricing"
)

// TestControlMethodsFromTheForecast: emsr-b-mr and bid-price nest the limits
// from the same forecast as emsr-b, each as pricing computes it, and
// emsr-b-mr reads the configured sell-up (silver's requests buying gold
// when silver is closed) by class rank.
func TestControlMethodsFromTheForecast(t *testing.T) {
	run := func(method pricing.LimitMethod, sellUp map[string]float64) (PeriodLimits, *Control) {
		rc := tinyResource(t, 10, 3)
		rc.Limits.Method, rc.Limits.SellUp = method, sellUp
		c := newControl(t, rc)
		for d := range 4 {
			bookDay(t, c, d, map[string]int{"gold": 2 + d%2, "silver": 8, "bronze": 6})
		}
		if _, err := c.Recompute(monday.AddDate(0, 0, 4)); err != nil {
			t.Fatal(err)
		}
		l := c.Limits("all")
		checkNested(t, l)
		if l.Source != "forecast" {
			t.Fatalf("%s: source %s", method, l.Source)
		}
		return l, c
	}
	demand := func(l PeriodLimits) []pricing.ClassDemand {
		cd := make([]pricing.ClassDemand, len(l.Demand))
		for i, fare := range []float64{4, 2, 1} {
			cd[i] = pricing.ClassDemand{Fare: fare, Mean: l.Demand[i].Mean, SD: l.Demand[i].SD}
		}
		return cd
	}
	up := map[string]float64{"silver": 0.6, "bronze": 0.3}
	mr, c := run(pricing.EMSRbMR, up)
	if got := c.SellUp(); !slices.Equal(got, []float64{0, 0.6, 0.3}) {
		t.Errorf("sell-up by rank %v, want [0 0.6 0.3]", got)
	}
	want, err := pricing.AllocateOverbookedMR(10, mr.OverbookingLimit, demand(mr), []float64{0, 0.6, 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mr.BookingLimits, want.BookingLimits) {
		t.Errorf("emsr-b-mr limits %v, want %v", mr.BookingLimits, want.BookingLimits)
	}
	plain, _ := run(pricing.EMSRbMR, nil)
	if slices.Equal(plain.BookingLimits, mr.BookingLimits) {
		t.Errorf("sell-up changed nothing: %v both", mr.BookingLimits)
	}
	bp, bc := run(pricing.BidPrice, nil)
	// gold 2.5 and silver 8 outrun the 10 nodes: the bid price is
	// silver's fare, 2 (its tau), as SlotBidPrice has it; every class is
	// open to the overbooking limit, a request is taken when its fare
	// covers the bid prices (pricing.Covers).
	pi, err := pricing.SlotBidPrice(float64(bp.OverbookingLimit), demand(bp))
	if err != nil {
		t.Fatal(err)
	}
	if bp.BidPrice == nil || !bp.BidPrice.Equal(decimal.NewFromFloat(pi)) || pi != 2 {
		t.Errorf("bid price %v, want %v (2)", bp.BidPrice, pi)
	}
	if !slices.Equal(bp.BookingLimits, []int{10, 10, 10}) {
		t.Errorf("bid-price limits %v, want every class open to 10", bp.BookingLimits)
	}
	if cl, ok := bc.BidClass(); !ok || !cl.Tau["all"].Equal(*bp.BidPrice) {
		t.Errorf("bid class %v (%v), want tau %v in all", cl.Tau, ok, bp.BidPrice)
	}
	if mr.BidPrice != nil {
		t.Errorf("emsr-b-mr has a bid price %v", mr.BidPrice)
	}
	t.Logf("limits: emsr-b-mr %v (no sell-up %v), bid-price %v, demand %v", mr.BookingLimits, plain.BookingLimits, bp.BookingLimits, fmt.Sprint(demand(bp)))
}

// TestBidClassPricesEveryPeriod: a period whose first instance has not
// ended has no bid price yet, but the bid class still prices it (at 0),
// so a hold there is checked, not refused as unpriced; night, ended and
// over its capacity, has silver's fare.
func TestBidClassPricesEveryPeriod(t *testing.T) {
	rc := tinyResource(t, 10, 3)
	rc.Limits.Method = pricing.BidPrice
	rc.Limits.ProtectionLevels = nil
	rc.RatePeriods = []pricing.RatePeriod{
		{Name: "night", Days: pricing.AllDays, From: pricing.Clock(0, 0), To: pricing.Clock(6, 0)},
		{Name: "day", Days: pricing.AllDays, From: pricing.Clock(6, 0), To: pricing.EndOfDay},
	}
	for i := range rc.FareClasses {
		tau := rc.FareClasses[i].Tau["all"]
		rc.FareClasses[i].Tau = map[string]decimal.Decimal{"night": tau, "day": tau}
	}
	c := newControl(t, rc)
	mustObserve(t, c, Event{Kind: EventBooked, BookingID: "g", Class: "gold", Nodes: 4, Start: monday, End: monday.Add(6 * time.Hour), At: monday.Add(-time.Hour)})
	mustObserve(t, c, Event{Kind: EventBooked, BookingID: "s", Class: "silver", Nodes: 6, Start: monday, End: monday.Add(6 * time.Hour), At: monday.Add(-time.Hour)})
	mustObserve(t, c, Event{Kind: EventBooked, BookingID: "b", Class: "bronze", Nodes: 1, Start: monday.Add(time.Hour), End: monday.Add(2 * time.Hour), At: monday.Add(-time.Hour)})
	if _, err := c.Recompute(monday.Add(7 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	if l := c.Limits("day"); l.BidPrice != nil {
		t.Fatalf("day has a bid price %v before any day ended", l.BidPrice)
	}
	bid, ok := c.BidClass()
	if !ok {
		t.Fatal("no bid class though night has a bid price")
	}
	if got, ok := bid.Tau["day"]; !ok || !got.IsZero() {
		t.Errorf("day's bid price in the class %v (%v), want 0", got, ok)
	}
	if got := bid.Tau["night"]; got.String() != "1" {
		t.Errorf("night's bid price %v, want bronze's 1 (gold 4 and silver 6 fill the 10 nodes, bronze does not fit)", got)
	}
	cal := c.Calendar()
	if _, err := pricing.PriceReservation(cal, bid, decimal.NewFromInt(1), 1, monday.AddDate(0, 0, 1).Add(8*time.Hour), monday.AddDate(0, 0, 1).Add(9*time.Hour)); err != nil {
		t.Fatalf("a day hour at the bid prices: %v", err)
	}
}
