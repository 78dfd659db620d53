package pricing

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestCoversALongRequestPerPeriodClosureRefuses: budget is below the peak's
// bid price (business's fare) but above the super saver's (0), so per-period
// closure refuses any budget request that touches the peak. Displacement
// takes one whose hours at night pay for the hour of peak it displaces, and
// still refuses one of the peak alone.
func TestCoversALongRequestPerPeriodClosureRefuses(t *testing.T) {
	cal, err := NewRateCalendar(time.UTC, DemoRatePeriods())
	if err != nil {
		t.Fatal(err)
	}
	classes := DemoFareClasses("")
	budget := classes[2]
	bid := BidClass(map[string]decimal.Decimal{
		PeriodSuperSaver: decimal.Zero,
		PeriodPeak:       budget.Tau[PeriodPeak].Add(decimal.RequireFromString("0.5")),
		PeriodOffPeak:    decimal.Zero,
	}, nil)
	mon := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name       string
		start, end time.Time
		want       bool
	}{
		{"six hours of super saver and one of peak", mon, mon.Add(7 * time.Hour), true},
		{"an hour of peak", mon.Add(8 * time.Hour), mon.Add(9 * time.Hour), false},
		{"ten minutes of super saver and an hour of peak", mon.Add(5*time.Hour + 50*time.Minute), mon.Add(7 * time.Hour), false},
	}
	for _, c := range cases {
		got, err := Covers(cal, budget, bid, c.start, c.end)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: covers %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCoversAgreesWithPricing: Covers is the class's price against the
// price of the same reservation at the bid prices, both from
// PriceReservation, on random intervals of up to three days, weekends
// included (weekend bid prices differ).
func TestCoversAgreesWithPricing(t *testing.T) {
	cal, err := NewRateCalendar(time.UTC, DemoRatePeriods())
	if err != nil {
		t.Fatal(err)
	}
	classes := DemoFareClasses("")
	for i := range classes {
		classes[i].WeekendTau = map[string]decimal.Decimal{PeriodOffPeak: classes[i].Tau[PeriodOffPeak].Add(decimal.RequireFromString("0.3"))}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	at := func() decimal.Decimal { return decimal.New(int64(rng.IntN(300)), -2) }
	base := decimal.RequireFromString("0.49")
	from := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	took, refused := 0, 0
	for range 2000 {
		bid := BidClass(map[string]decimal.Decimal{PeriodSuperSaver: at(), PeriodPeak: at(), PeriodOffPeak: at()},
			map[string]decimal.Decimal{PeriodOffPeak: at()})
		start := from.Add(time.Duration(rng.IntN(7*24*3600)) * time.Second)
		end := start.Add(time.Duration(1+rng.IntN(3*24*3600)) * time.Second)
		class := classes[rng.IntN(len(classes))]
		got, err := Covers(cal, class, bid, start, end)
		if err != nil {
			t.Fatal(err)
		}
		fare, err := PriceReservation(cal, class, base, 3, start, end)
		if err != nil {
			t.Fatal(err)
		}
		cost, err := PriceReservation(cal, bid, base, 3, start, end)
		if err != nil {
			t.Fatal(err)
		}
		if want := fare.Total.GreaterThanOrEqual(cost.Total); got != want {
			t.Fatalf("%s %s..%s: covers %v, prices %s against %s", class.Name, start, end, got, fare.Total, cost.Total)
		}
		if got {
			took++
		} else {
			refused++
		}
	}
	if took == 0 || refused == 0 {
		t.Errorf("the draws took %d and refused %d: both sides must be tried", took, refused)
	}
}

// TestMarginalClassIsTheBidPrice: the marginal class's fare is SlotBidPrice.
func TestMarginalClassIsTheBidPrice(t *testing.T) {
	classes := []ClassDemand{{Fare: 4, Mean: 3}, {Fare: 2, Mean: 5}, {Fare: 1, Mean: 6}}
	for _, c := range []struct {
		capacity float64
		want     int
	}{{2, 0}, {3, 1}, {8, 2}, {14, -1}, {20, -1}} {
		got := MarginalClass(c.capacity, classes)
		if got != c.want {
			t.Errorf("capacity %v: marginal class %d, want %d", c.capacity, got, c.want)
		}
		pi, err := SlotBidPrice(c.capacity, classes)
		if err != nil {
			t.Fatal(err)
		}
		if (got < 0 && pi != 0) || (got >= 0 && pi != classes[got].Fare) {
			t.Errorf("capacity %v: bid price %v, marginal class %d", c.capacity, pi, got)
		}
	}
}

// BenchmarkDisplacement is what bid-price control adds to an offer
// (Covers) and to a hold (the bid prices priced as a reservation): a
// request of six super-saver hours and one peak hour, two periods.
func BenchmarkDisplacement(b *testing.B) {
	cal, err := NewRateCalendar(time.UTC, DemoRatePeriods())
	if err != nil {
		b.Fatal(err)
	}
	budget := DemoFareClasses("")[2]
	bid := BidClass(map[string]decimal.Decimal{PeriodSuperSaver: decimal.Zero, PeriodPeak: decimal.RequireFromString("2.5"),
		PeriodOffPeak: decimal.Zero}, nil)
	start := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	end := start.Add(7 * time.Hour)
	base := decimal.RequireFromString("0.49")
	b.Run("offer", func(b *testing.B) {
		for b.Loop() {
			if ok, err := Covers(cal, budget, bid, start, end); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("hold", func(b *testing.B) {
		for b.Loop() {
			if _, err := PriceReservation(cal, bid, base, 4, start, end); err != nil {
				b.Fatal(err)
			}
		}
	})
}
