package control

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/pricing"
)

// truth is a class's willingness to pay in the tests: the share of quotes
// at tau that sell.
func truth(median, slope float64) func(float64) float64 {
	return func(tau float64) float64 { return 1 / (1 + math.Pow(tau/median, slope)) }
}

// priceRecords are days of demand records of tiny's classes: each day,
// per class, 200 quotes at each of taus and the sales the class's truth
// gives, and its users asking demand[class] nodes all day.
func priceRecords(c *Control, days int, taus []float64, accept map[string]func(float64) float64, demand map[string]float64) []booking.DemandRecord {
	var recs []booking.DemandRecord
	for d := range days {
		day := monday.AddDate(0, 0, d)
		in := c.Instances(day, day.AddDate(0, 0, 1))[0]
		for class, a := range accept {
			counts := booking.DemandCounts{Offered: booking.DemandTally{Requests: 10, NodeSeconds: int64(demand[class] * 86400)},
				Quoted: map[string]booking.DemandTally{}, Sold: map[string]booking.DemandTally{}}
			for _, tau := range taus {
				key := FareKey(decimal.NewFromFloat(tau))
				counts.Quoted[key] = booking.DemandTally{Requests: 200}
				counts.Sold[key] = booking.DemandTally{Requests: int64(math.Round(200 * a(tau)))}
			}
			recs = append(recs, booking.DemandRecord{Resource: "tiny", Class: class, Period: "all", Instance: in.Start, Day: day, Counts: counts})
		}
	}
	return recs
}

// bestOnGrid is, independently of the pricing package, the grid tau of
// most revenue per quote for a response when capacity is no constraint.
func bestOnGrid(grid []decimal.Decimal, a func(float64) float64) float64 {
	best, bv := 0.0, -1.0
	for _, g := range grid {
		t := g.InexactFloat64()
		if v := t * a(t); v > bv {
			best, bv = t, v
		}
	}
	return best
}

func faresOf(t *testing.T, nodes int, bounds *config.FareBounds, records func(*Control) []booking.DemandRecord) (*Control, PeriodLimits) {
	t.Helper()
	rc := tinyResource(t, nodes, 3)
	rc.Limits.Fares = bounds
	c := newControl(t, rc)
	c.SetDemand(records(c))
	if _, err := c.Recompute(monday.AddDate(0, 0, 10)); err != nil {
		t.Fatal(err)
	}
	return c, c.Limits("all")
}

var testTruth = map[string]func(float64) float64{"gold": truth(4, 5), "silver": truth(2.5, 6), "bronze": truth(1.5, 8)}

// TestControlSetsFaresFromThePriceResponse: from quotes and sales at five
// taus a day for ten days, with room for everyone, each class's fare is
// the tau of most revenue for its users' true response (one grid step
// either way: the response is fitted), the fares fall by rank, the
// classes sell at them (PricedClasses, QuotedAt), and the EMSR nesting
// is laid out on them. Without fare bounds nothing moves.
func TestControlSetsFaresFromThePriceResponse(t *testing.T) {
	bounds := &config.FareBounds{MinTau: decimal.RequireFromString("0.5"), MaxTau: decimal.RequireFromString("6")}
	quotes := func(c *Control) []booking.DemandRecord {
		return priceRecords(c, 10, []float64{1, 2, 3, 4, 5}, testTruth, map[string]float64{"gold": 1, "silver": 1, "bronze": 1})
	}
	c, l := faresOf(t, 20, bounds, quotes)
	if len(l.Fares) != 3 {
		t.Fatalf("limits %+v: no fares", l)
	}
	for i, class := range []string{"gold", "silver", "bronze"} {
		want := bestOnGrid(bounds.Grid(), testTruth[class])
		if got := l.Fares[i].InexactFloat64(); math.Abs(got-want) > 0.05+1e-9 {
			t.Errorf("%s sells at %v, want %v (one step either way)", class, got, want)
		}
		if tau, _ := c.PricedClasses()[i].TauFor("all"); !tau.Equal(l.Fares[i]) {
			t.Errorf("%s is priced %v, its fare is %v", class, tau, l.Fares[i])
		}
		if got := c.QuotedAt(i, monday.AddDate(0, 0, 11)); got != FareKey(l.Fares[i]) {
			t.Errorf("%s quoted at %q", class, got)
		}
	}
	if !l.Fares[0].GreaterThan(l.Fares[1]) || !l.Fares[1].GreaterThan(l.Fares[2]) {
		t.Errorf("fares %v do not fall by rank", l.Fares)
	}
	if l.Source != "forecast" && l.Source != "prior" {
		t.Errorf("nesting from %q", l.Source)
	}
	plain, pl := faresOf(t, 20, nil, quotes)
	if pl.Fares != nil || plain.QuotedAt(0, monday) != "" {
		t.Errorf("without fare bounds: fares %v, quoted %q", pl.Fares, plain.QuotedAt(0, monday))
	}
	if tau, _ := plain.PricedClasses()[0].TauFor("all"); tau.String() != "4" {
		t.Errorf("without fare bounds gold sells at %v, configured 4", tau)
	}
}

// TestControlFaresRiseWhenCapacityBinds: the same users ten times as many
// on two nodes: the fares rise above those of the room-for-everyone case,
// so that what they sell fits (pricing.OptimalFares' shadow price), and the
// nesting is EMSR-b on what each class books at its fare.
func TestControlFaresRiseWhenCapacityBinds(t *testing.T) {
	bounds := &config.FareBounds{MinTau: decimal.RequireFromString("0.5"), MaxTau: decimal.RequireFromString("6")}
	records := func(demand float64) func(*Control) []booking.DemandRecord {
		return func(c *Control) []booking.DemandRecord {
			return priceRecords(c, 10, []float64{1, 2, 3, 4, 5}, testTruth, map[string]float64{"gold": demand, "silver": demand, "bronze": demand})
		}
	}
	_, slack := faresOf(t, 20, bounds, records(1))
	c, tight := faresOf(t, 2, bounds, records(10))
	// The nesting is laid out on what each class books at its fare (its
	// requests times its fitted acceptance), not on the bookings seen at
	// the fares of the past.
	responses, err := c.fareResponses()
	if err != nil {
		t.Fatal(err)
	}
	cd := make([]pricing.ClassDemand, 3)
	for i, r := range responses {
		m := 10 * r.Accept(tight.Fares[i].InexactFloat64())
		cd[i] = pricing.ClassDemand{Fare: tight.Fares[i].InexactFloat64(), Mean: m, SD: math.Sqrt(m)}
	}
	alloc, err := pricing.AllocateOverbooked(pricing.EMSRb, 2, tight.OverbookingLimit, cd)
	if err != nil {
		t.Fatal(err)
	}
	if tight.Source != "forecast" || fmt.Sprint(tight.BookingLimits) != fmt.Sprint(alloc.BookingLimits) {
		t.Errorf("limits %v (%s), want EMSR-b on the priced demand %v", tight.BookingLimits, tight.Source, alloc.BookingLimits)
	}
	load := 0.0
	for i, class := range []string{"gold", "silver", "bronze"} {
		if !tight.Fares[i].GreaterThan(slack.Fares[i]) {
			t.Errorf("%s: %v with two nodes, %v with room", class, tight.Fares[i], slack.Fares[i])
		}
		load += 10 * testTruth[class](tight.Fares[i].InexactFloat64())
	}
	if load > 2*1.15 {
		t.Errorf("fares %v sell %.2f nodes of 2", tight.Fares, load)
	}
}

// TestControlFaresWaitForQuotes: with fewer than FareMinQuotes quotes of a
// class, the classes sell at the configured taus, moved into the bounds
// (gold's 4 down to 3, bronze's 1 up to 1.2).
func TestControlFaresWaitForQuotes(t *testing.T) {
	bounds := &config.FareBounds{MinTau: decimal.RequireFromString("1.2"), MaxTau: decimal.RequireFromString("3")}
	_, l := faresOf(t, 20, bounds, func(c *Control) []booking.DemandRecord {
		recs := priceRecords(c, 1, []float64{2}, testTruth, map[string]float64{"gold": 1, "silver": 1, "bronze": 1})
		for i := range recs {
			recs[i].Counts.Quoted["2.00"] = booking.DemandTally{Requests: FareMinQuotes - 1}
		}
		return recs
	})
	if fmt.Sprint(l.Fares) != "[3 2 1.2]" {
		t.Errorf("fares %v, want [3 2 1.2]", l.Fares)
	}
}

// TestControlWeekendFares: ten times as many users on weekdays as at
// weekends, on two nodes: the weekend instances of the one period sell
// below its weekday ones (fares by kind of day), priced so by
// PricedClasses on a Saturday, and the limits report shows a Friday's
// and a Saturday's (a piece that spans both shows its start's).
func TestControlWeekendFares(t *testing.T) {
	rc := tinyResource(t, 2, 3)
	rc.Limits.Fares = &config.FareBounds{MinTau: decimal.RequireFromString("0.5"), MaxTau: decimal.RequireFromString("6")}
	c := newControl(t, rc)
	var recs []booking.DemandRecord
	for d := range 14 {
		demand := 10.0
		if wd := monday.AddDate(0, 0, d).Weekday(); wd == time.Saturday || wd == time.Sunday {
			demand = 1
		}
		day := priceRecords(c, d+1, []float64{1, 2, 3, 4, 5}, testTruth, map[string]float64{"gold": demand, "silver": demand, "bronze": demand})
		recs = append(recs, day[len(day)-3:]...) // day d's three classes
	}
	c.SetDemand(recs)
	now := monday.AddDate(0, 0, 14)
	if _, err := c.Recompute(now); err != nil {
		t.Fatal(err)
	}
	l := c.Limits("all")
	if len(l.WeekendFares) != 3 {
		t.Fatalf("limits %+v: no weekend fares", l)
	}
	for i := range l.Fares {
		if !l.WeekendFares[i].LessThan(l.Fares[i]) {
			t.Errorf("class %d: weekend %v, weekday %v", i, l.WeekendFares[i], l.Fares[i])
		}
	}
	sat := monday.AddDate(0, 0, 19)
	if got, _ := c.PricedClasses()[2].TauAt(c.Calendar(), "all", sat); !got.Equal(l.WeekendFares[2]) {
		t.Errorf("bronze on a Saturday sells at %v, its weekend fare is %v", got, l.WeekendFares[2])
	}
	for _, c2 := range []struct {
		day  int
		want decimal.Decimal
	}{{18, l.Fares[2]}, {19, l.WeekendFares[2]}} { // Friday, Saturday
		from := monday.AddDate(0, 0, c2.day)
		rep, err := BuildLimitsReport(c, from, from.Add(12*time.Hour), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Periods) != 1 || rep.Periods[0].Fares["bronze"] != c2.want.String() {
			t.Errorf("report of day %d %+v, want bronze at %v", c2.day, rep.Periods, c2.want)
		}
	}
}
