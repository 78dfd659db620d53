package pricing

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
)

func TestAcceptIsLogLogistic(t *testing.T) {
	r := PriceResponse{Median: 2, Slope: 4}
	if a := r.Accept(2); a != 0.5 {
		t.Errorf("at the median %v, want 0.5", a)
	}
	if a := r.Accept(4); math.Abs(a-1/17.0) > 1e-12 {
		t.Errorf("at twice the median %v, want 1/17", a)
	}
	steep := PriceResponse{Median: 2, Slope: 8}
	if !(r.Accept(1) > r.Accept(3)) || !(steep.Accept(3) < r.Accept(3)) {
		t.Error("acceptance must fall with tau, faster for a larger slope")
	}
}

// expected are Offered quotes at each tau, taken as the response says.
func expected(r PriceResponse, offered float64, taus ...float64) []PriceObservation {
	out := make([]PriceObservation, len(taus))
	for i, tau := range taus {
		out[i] = PriceObservation{Tau: tau, Offered: offered, Taken: offered * r.Accept(tau)}
	}
	return out
}

// TestFitPriceResponse: with many quotes at eight taus the fit recovers
// the response within 1% whatever the (weak) prior; with none it is the
// prior; with quotes at one tau it meets the acceptance there and keeps
// near the prior's slope.
func TestFitPriceResponse(t *testing.T) {
	weak := ResponsePriorSD{LnMedian: 3, Slope: 20}
	for _, truth := range []PriceResponse{{3, 5}, {1.9, 8}, {2.5, 2}} {
		got, err := FitPriceResponse(expected(truth, 1e4, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5), PriceResponse{Median: 2, Slope: 4}, weak)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Median/truth.Median-1) > 0.01 || math.Abs(got.Slope/truth.Slope-1) > 0.01 {
			t.Errorf("fit %+v, truth %+v", got, truth)
		}
	}
	prior := PriceResponse{Median: 2, Slope: 4}
	if got, err := FitPriceResponse(nil, prior, weak); err != nil || got != prior {
		t.Errorf("no data: %+v, %v", got, err)
	}
	one := []PriceObservation{{Tau: 2.5, Offered: 500, Taken: 150}}
	got, err := FitPriceResponse(one, prior, ResponsePriorSD{LnMedian: 1, Slope: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Accept(2.5); math.Abs(a-0.3) > 1e-3 || math.Abs(got.Slope-4) > 0.5 {
		t.Errorf("one tau: %+v accepts %v at 2.5, want 0.3 and a slope near 4", got, a)
	}
}

func TestFitPriceResponseRefuses(t *testing.T) {
	p, sd := PriceResponse{Median: 2, Slope: 4}, ResponsePriorSD{LnMedian: 1, Slope: 1}
	for _, c := range []struct {
		obs   []PriceObservation
		p     PriceResponse
		sd    ResponsePriorSD
		field string
	}{
		{[]PriceObservation{{Tau: 0, Offered: 1}}, p, sd, "obs[0].tau"},
		{[]PriceObservation{{Tau: 1, Offered: 1}, {Tau: 2, Offered: -1}}, p, sd, "obs[1].offered"},
		{[]PriceObservation{{Tau: 1, Offered: 1, Taken: 2}}, p, sd, "obs[0].taken"},
		{[]PriceObservation{{Tau: math.NaN(), Offered: 1}}, p, sd, "obs[0].tau"},
		{nil, PriceResponse{Median: 0, Slope: 4}, sd, "prior"},
		{nil, p, ResponsePriorSD{LnMedian: 0, Slope: 1}, "sd"},
	} {
		if _, err := FitPriceResponse(c.obs, c.p, c.sd); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Errorf("%+v: %v, want Invalid naming %s", c, err, c.field)
		}
	}
}

// bruteFares is an independent reference: every combination of grid
// taus, nested (higher class not below a lower one), whose load fits,
// the one of most revenue.
func bruteFares(classes []FareDemand, capacity float64, grid []float64) ([]float64, float64) {
	best, bestRev := []float64(nil), -1.0
	idx := make([]int, len(classes))
	for {
		taus := make([]float64, len(classes))
		rev, load, nested := 0.0, 0.0, true
		for i, c := range classes {
			taus[i] = grid[idx[i]]
			if i > 0 && taus[i] > taus[i-1] {
				nested = false
			}
			sold := c.Demand * c.Response.Accept(taus[i])
			rev, load = rev+taus[i]*sold, load+sold
		}
		if nested && load <= capacity+1e-9 && rev > bestRev {
			best, bestRev = taus, rev
		}
		k := 0
		for k < len(idx) && idx[k] == len(grid)-1 {
			idx[k] = 0
			k++
		}
		if k == len(idx) {
			return best, bestRev
		}
		idx[k]++
	}
}

func revenueOf(classes []FareDemand, taus []float64) (rev, load float64) {
	for i, c := range classes {
		sold := c.Demand * c.Response.Accept(taus[i])
		rev, load = rev+taus[i]*sold, load+sold
	}
	return rev, load
}

// TestOptimalFaresAgainstBruteForce: on a 0.1-step grid, with room for all
// the fares are each class's own best (mu 0, equal to the reference);
// where capacity binds mu > 0, the load fits and the revenue is within 1%
// of the best nested combination's.
func TestOptimalFaresAgainstBruteForce(t *testing.T) {
	grid, err := FareGrid(0.5, 4, 36)
	if err != nil {
		t.Fatal(err)
	}
	premium, business, budget := PriceResponse{3, 4.5}, PriceResponse{2.5, 6}, PriceResponse{1.9, 8}
	for _, c := range []struct {
		name     string
		classes  []FareDemand
		capacity float64
	}{
		{"room", []FareDemand{{10, premium}, {10, business}, {10, budget}}, 100},
		{"binding", []FareDemand{{40, premium}, {60, business}, {150, budget}}, 41},
		{"premium alone fills it", []FareDemand{{60, premium}, {10, business}, {10, budget}}, 20},
		{"two classes", []FareDemand{{30, premium}, {80, budget}}, 25},
		// The lower class wants the top fare, the many in the higher one
		// buy only cheap: raising the higher to the lower's fare would
		// earn a ninth of the best.
		{"lower class buys dear, room", []FareDemand{{71, PriceResponse{0.8, 7.3}}, {1.05, PriceResponse{2.48, 1.14}}}, 100},
		{"lower class buys dear, binding", []FareDemand{{69, PriceResponse{0.64, 4.6}}, {48, PriceResponse{1.0, 10.2}}}, 25.8},
		{"pooled classes part", []FareDemand{{30.6, PriceResponse{1.22, 5.37}}, {42.7, PriceResponse{1.46, 4.5}}, {74.5, PriceResponse{0.7, 2.19}}}, 22.06},
	} {
		taus, mu, err := OptimalFares(c.classes, c.capacity, grid)
		if err != nil {
			t.Fatal(err)
		}
		ref, refRev := bruteFares(c.classes, c.capacity, grid)
		rev, load := revenueOf(c.classes, taus)
		if load > c.capacity+1e-6 {
			t.Errorf("%s: fares %v sell %v of %v", c.name, taus, load, c.capacity)
		}
		if rev < 0.99*refRev {
			t.Errorf("%s: fares %v earn %v, the reference %v earns %v", c.name, taus, rev, ref, refRev)
		}
		if strings.HasSuffix(c.name, "room") && (mu != 0 || !equalFloats(taus, ref)) {
			t.Errorf("%s: fares %v mu %v, want the reference %v and mu 0", c.name, taus, mu, ref)
		}
		if !strings.HasSuffix(c.name, "room") && mu <= 0 {
			t.Errorf("%s: mu %v, want capacity to bind", c.name, mu)
		}
	}
}

// TestOptimalFaresOnRandomDemand: 400 draws (seeded) of one to three
// classes, medians 0.6 to 3.6, slopes 1.1 to 11.1 in any order of rank,
// demand up to 100 and capacity up to 80 on a 15-tau grid: the fares
// always fit and earn within 1% of the brute-force best.
func TestOptimalFaresOnRandomDemand(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	grid, err := FareGrid(0.5, 4, 15)
	if err != nil {
		t.Fatal(err)
	}
	for range 400 {
		classes := make([]FareDemand, 1+rng.IntN(3))
		for i := range classes {
			classes[i] = FareDemand{Demand: 100 * rng.Float64(), Response: PriceResponse{Median: 0.6 + 3*rng.Float64(), Slope: 1.1 + 10*rng.Float64()}}
		}
		capacity := 80 * rng.Float64()
		taus, _, err := OptimalFares(classes, capacity, grid)
		if err != nil {
			t.Fatal(err)
		}
		ref, refRev := bruteFares(classes, capacity, grid)
		if ref == nil {
			continue // even the top fare sells more than capacity
		}
		if rev, load := revenueOf(classes, taus); load > capacity+1e-6 || rev < 0.99*refRev {
			t.Errorf("%+v on %v nodes: fares %v earn %v selling %v, the reference %v earns %v", classes, capacity, taus, rev, load, ref, refRev)
		}
	}
}

// TestOptimalFaresByHand: one class of slope 2 and median 2 on grid
// {1, 2, 3, 4}: revenue per user 0.8, 1, 0.92, 0.8, so 2 with room; with
// 10 users and 2 nodes the load at 3 (3.08) does not fit and 4 (2) does;
// where even 4 does not fit, 4. Bad input names its field.
func TestOptimalFaresByHand(t *testing.T) {
	r := PriceResponse{Median: 2, Slope: 2}
	grid := []float64{1, 2, 3, 4}
	if taus, mu, _ := OptimalFares([]FareDemand{{10, r}}, 10, grid); taus[0] != 2 || mu != 0 {
		t.Errorf("with room: %v, mu %v", taus, mu)
	}
	if taus, mu, _ := OptimalFares([]FareDemand{{10, r}}, 2, grid); taus[0] != 4 || mu <= 0 {
		t.Errorf("two nodes: %v, mu %v", taus, mu)
	}
	// 100 users on one node: even 4 sells 20; the top of the grid.
	if taus, _, _ := OptimalFares([]FareDemand{{100, r}, {100, r}}, 1, grid); taus[0] != 4 || taus[1] != 4 {
		t.Errorf("one node for 200 users: %v", taus)
	}
	for _, c := range []struct {
		classes  []FareDemand
		capacity float64
		grid     []float64
		field    string
	}{
		{[]FareDemand{{1, r}}, 1, nil, "grid"},
		{[]FareDemand{{1, r}}, 1, []float64{2, 1}, "grid"},
		{[]FareDemand{{1, r}}, -1, grid, "capacity"},
		{[]FareDemand{{-1, r}}, 1, grid, "classes[0]"},
		{[]FareDemand{{1, PriceResponse{0, 2}}}, 1, grid, "classes[0]"},
	} {
		if _, _, err := OptimalFares(c.classes, c.capacity, c.grid); slotfare.FieldOf(err) != c.field {
			t.Errorf("%+v: %v, want an error naming %s", c, err, c.field)
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// TestPriceWeekendTau: a class with weekend fares (booking control's, by
// kind of day) prices a Saturday piece at its weekend tau and a Friday one
// at its tau: budget from Friday 16:00 to Saturday 08:00 (London, January)
// on 1 node, the weekend off-peak at 1.00 instead of 1.75: 2h x 2.25 + 6h x
// 1.75 + 6h x 1.25 + 2h x 1.00 = 24.5 tau-hours, x 3600 x 0.49 = 43,218 (45,864
// at 1.75);
// TauAt says the same at each instant.
func TestPriceWeekendTau(t *testing.T) {
	cal := rateDemoCalendar(t, "Europe/London")
	budget := DemoFareClasses("")[2]
	budget.WeekendTau = map[string]decimal.Decimal{PeriodOffPeak: decimal.RequireFromString("1.00")}
	p, err := PriceReservation(cal, budget, decimal.RequireFromString("0.49"), 1, rateUTC(t, "2025-01-10T16:00:00Z"), rateUTC(t, "2025-01-11T08:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Total.Equal(decimal.RequireFromString("43218")) {
		t.Errorf("total %s, want 43218 (pieces %+v)", p.Total, p.Pieces)
	}
	fri, _ := budget.TauAt(cal, PeriodOffPeak, rateUTC(t, "2025-01-10T19:00:00Z"))
	sat, _ := budget.TauAt(cal, PeriodOffPeak, rateUTC(t, "2025-01-11T07:00:00Z"))
	if fri.String() != "1.75" || sat.String() != "1" {
		t.Errorf("off-peak tau Friday %s, Saturday %s; want 1.75 and 1", fri, sat)
	}
}

// TestFareGrid: evenly spaced, both ends in, rounded to cents, repeats
// after rounding dropped; bad bounds name their field.
func TestFareGrid(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{1, 2, 2, []float64{1, 2}},
		{0.5, 4, 8, []float64{0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4}},
		{1, 2, 4, []float64{1, 1.33, 1.67, 2}},
		{1, 1.02, 5, []float64{1, 1.01, 1.02}},
	} {
		if got, err := FareGrid(c.lo, c.hi, c.n); err != nil || !equalFloats(got, c.want) {
			t.Errorf("FareGrid(%v, %v, %d) = %v, %v, want %v", c.lo, c.hi, c.n, got, err, c.want)
		}
	}
	for _, c := range []struct {
		lo, hi float64
		n      int
		field  string
	}{
		{0, 2, 3, "lo"}, {-1, 2, 3, "lo"}, {math.NaN(), 2, 3, "lo"},
		{2, 2, 3, "hi"}, {1, math.Inf(1), 3, "hi"}, {1, math.NaN(), 3, "hi"},
		{1, 2, 1, "n"},
	} {
		if _, err := FareGrid(c.lo, c.hi, c.n); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Errorf("FareGrid(%v, %v, %d): %v, want Invalid naming %s", c.lo, c.hi, c.n, err, c.field)
		}
	}
}
