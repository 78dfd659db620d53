package pricing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"slotfare"
)

// The network example RevPy's LP test reproduces (tests/test_lpsolve.py,
// from Figure 18 and Tables 14-15 of "Airline network revenue management:
// considerations for implementation", JRPM 2014): legs SFO-CLT, CLT-BOS,
// ABE-CLT with capacities 10, 10, 8; itineraries SFO-BOS, SFO-CLT, CLT-BOS,
// ABE-BOS, ABE-CLT in classes H and N. Printed: allocations H 5, 4, 5, 0, 3
// and N 0, 1, 0, 0, 5; bid prices 380, 420, 0.
func TestNetworkBidPricesPublishedExample(t *testing.T) {
	legs := [][]int{{0, 1}, {0}, {1}, {1, 2}, {2}}
	fares := [2][5]float64{{800, 500, 580, 350, 120}, {450, 380, 400, 250, 100}}
	demand := [2][5]float64{{6, 4, 5, 4, 3}, {15, 14, 8, 11, 5}}
	var products []Product
	for c := range 2 {
		for i, l := range legs {
			products = append(products, Product{Fare: fares[c][i], Demand: demand[c][i], Slots: l})
		}
	}
	sol, err := NetworkBidPrices([]float64{10, 10, 8}, products)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{5, 4, 5, 0, 3, 0, 1, 0, 0, 5}
	for j, x := range want {
		if !near(sol.Allocation[j], x, 1e-7) {
			t.Errorf("allocation %d = %v, want %v", j, sol.Allocation[j], x)
		}
	}
	for i, bp := range []float64{380, 420, 0} {
		if !near(sol.BidPrices[i], bp, 1e-7) {
			t.Errorf("bid price of leg %d = %v, want %v", i, sol.BidPrices[i], bp)
		}
	}
	if !near(sol.Revenue, 10140, 1e-6) {
		t.Errorf("revenue %v, want 10140", sol.Revenue)
	}
}

// bruteValue is the best revenue of one slot over whole units, by trying
// every sale of every class: with integer demand the LP's optimum is whole
// (one constraint row), so this is V(C), and V(C+1) - V(C) is the value of
// one more unit, the smallest dual of the capacity row.
func bruteValue(capacity int, fares []float64, demand []int) float64 {
	if len(fares) == 0 {
		return 0
	}
	best := 0.0
	for x := 0; x <= demand[0] && x <= capacity; x++ {
		best = math.Max(best, fares[0]*float64(x)+bruteValue(capacity-x, fares[1:], demand[1:]))
	}
	return best
}

func TestSlotBidPriceAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for trial := range 300 {
		n := 1 + r.IntN(4)
		fares := make([]float64, n)
		demand := make([]int, n)
		cs := make([]ClassDemand, n)
		fare := 10 + float64(r.IntN(90))
		for k := range n {
			fares[k], demand[k] = fare, r.IntN(6)
			cs[k] = ClassDemand{Fare: fare, Mean: float64(demand[k])}
			fare -= 1 + float64(r.IntN(9))
			if fare <= 0 {
				n, fares, demand, cs = k+1, fares[:k+1], demand[:k+1], cs[:k+1]
				break
			}
		}
		capacity := r.IntN(15)
		want := bruteValue(capacity+1, fares, demand) - bruteValue(capacity, fares, demand)
		got, err := SlotBidPrice(float64(capacity), cs)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("trial %d: C=%d fares %v demand %v: bid price %v, enumeration %v", trial, capacity, fares, demand, got, want)
		}
	}
}

// The (slot x class) LP solved whole by the simplex has the same bid prices
// as the per-slot knapsacks: nothing couples the slots.
func TestBidPricesDecomposeBySlot(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	for trial := range 40 {
		slots := make([][]ClassDemand, 1+r.IntN(5))
		var products []Product
		capacity := 5 + 30*r.Float64()
		for s := range slots {
			slots[s] = randomClasses(r, 1+r.IntN(5))
			for _, c := range slots[s] {
				products = append(products, Product{Fare: c.Fare, Demand: c.Mean, Slots: []int{s}})
			}
		}
		got, err := BidPrices(capacity, slots)
		if err != nil {
			t.Fatal(err)
		}
		caps := make([]float64, len(slots))
		for s := range caps {
			caps[s] = capacity
		}
		sol, err := NetworkBidPrices(caps, products)
		if err != nil {
			t.Fatal(err)
		}
		for s := range slots {
			if !near(got[s], sol.BidPrices[s], 1e-6*(1+got[s])) {
				t.Fatalf("trial %d slot %d: per-slot %v, simplex %v (classes %+v, C %v)", trial, s, got[s], sol.BidPrices[s], slots[s], capacity)
			}
		}
	}
}

func TestBidPricesBadInput(t *testing.T) {
	good := classes([]float64{3, 2, 1}, []float64{1, 1, 1}, []float64{0, 0, 0})
	for _, tt := range []struct {
		name  string
		call  func() error
		field string
	}{
		{"slot capacity", func() error { _, err := SlotBidPrice(-1, good); return err }, "capacity"},
		{"slot NaN", func() error { _, err := SlotBidPrice(math.NaN(), good); return err }, "capacity"},
		{"slot fares", func() error { _, err := SlotBidPrice(3, []ClassDemand{{Fare: 1}, {Fare: 2}}); return err }, "classes[1].fare"},
		{"slots fares", func() error {
			_, err := BidPrices(3, [][]ClassDemand{good, {{Fare: 1, Mean: -1}}})
			return err
		}, "slots[1].classes[0].mean"},
		{"network no slot", func() error { _, err := NetworkBidPrices(nil, nil); return err }, "capacity"},
		{"network capacity", func() error { _, err := NetworkBidPrices([]float64{math.Inf(1)}, nil); return err }, "capacity[0]"},
		{"network fare", func() error {
			_, err := NetworkBidPrices([]float64{1}, []Product{{Fare: -1, Slots: []int{0}}})
			return err
		}, "products[0].fare"},
		{"network demand", func() error {
			_, err := NetworkBidPrices([]float64{1}, []Product{{Fare: 1, Demand: math.NaN(), Slots: []int{0}}})
			return err
		}, "products[0].demand"},
		{"network slot", func() error {
			_, err := NetworkBidPrices([]float64{1}, []Product{{Fare: 1, Slots: []int{1}}})
			return err
		}, "products[0].slots"},
		{"network repeated slot", func() error {
			_, err := NetworkBidPrices([]float64{1, 1}, []Product{{Fare: 1, Slots: []int{1, 1}}})
			return err
		}, "products[0].slots"},
	} {
		err := tt.call()
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("%s: %v (field %q), want invalid %q", tt.name, err, slotfare.FieldOf(err), tt.field)
		}
	}
}

// eightClasses is 30 days of 5-minute slots (8,640) x 8 classes, demand
// following the day with no two neighbouring slots alike.
func eightClasses(capacity float64) [][]ClassDemand {
	const slots = 30 * 24 * 12
	out := make([][]ClassDemand, slots)
	for s := range out {
		hour := (s % 288) / 12
		load := 0.4
		if hour >= 8 && hour < 18 {
			load = 1.3
		}
		wobble := 1 + 0.1*float64(s%37)/37
		cs := make([]ClassDemand, 8)
		fare := 3.4
		for k := range cs {
			mean := load * capacity / 8 * wobble * (0.5 + 0.15*float64(k))
			cs[k] = ClassDemand{Fare: fare, Mean: mean, SD: 0.3 * mean}
			fare *= 0.88
		}
		out[s] = cs
	}
	return out
}

// BenchmarkBidPrices30Days re-solves the bid prices of 30 days of 5-minute
// slots x 8 classes (one op = the whole LP, 69,120 variables, decomposed
// per slot). Target: <= 1 s per op on one core.
func BenchmarkBidPrices30Days(b *testing.B) {
	for _, capacity := range []float64{67, 5000} {
		slots := eightClasses(capacity)
		b.Run(fmt.Sprintf("C=%v", capacity), func(b *testing.B) {
			for b.Loop() {
				if _, err := BidPrices(capacity, slots); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNetworkBidPricesOneHour is the same LP for one hour (12 slots x
// 8 classes) handed whole to gonum's dense simplex, to show what the
// decomposition saves.
func BenchmarkNetworkBidPricesOneHour(b *testing.B) {
	slots := eightClasses(67)[108:120]
	caps := make([]float64, len(slots))
	var products []Product
	for s, cs := range slots {
		caps[s] = 67
		for _, c := range cs {
			products = append(products, Product{Fare: c.Fare, Demand: c.Mean, Slots: []int{s}})
		}
	}
	for b.Loop() {
		if _, err := NetworkBidPrices(caps, products); err != nil {
			b.Fatal(err)
		}
	}
}

// A class is open exactly when its fare covers the slot's bid price.
func TestBidPriceAllocationClosesBelowThePrice(t *testing.T) {
	cs := classes([]float64{3, 2, 1}, []float64{4, 4, 4}, []float64{1, 1, 1})
	for _, tt := range []struct {
		capacity int
		limits   []int
	}{
		{20, []int{20, 20, 20}}, // demand fits: pi = 0
		{6, []int{6, 6, 0}},     // class 2 runs out: pi = 2
		{4, []int{4, 4, 0}},     // class 1 fills it exactly: one more unit sells at 2
		{3, []int{3, 0, 0}},     // class 1 runs out: pi = 3
	} {
		for _, a := range []Allocation{BidPriceAllocation(tt.capacity, cs), must(Allocate(BidPrice, tt.capacity, cs))} {
			if fmt.Sprint(a.BookingLimits) != fmt.Sprint(tt.limits) {
				t.Errorf("C=%d: limits %v, want %v", tt.capacity, a.BookingLimits, tt.limits)
			}
		}
	}
}

func must(a Allocation, err error) Allocation {
	if err != nil {
		panic(err)
	}
	return a
}
