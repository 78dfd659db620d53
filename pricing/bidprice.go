package pricing

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"slotfare"
)

// Bid prices from the deterministic LP of network revenue management
// (Talluri and van Ryzin, "The Theory and Practice of Revenue Management",
// Sec. 3.3.1; the leg-based bid prices of Fiig et al. 2010 are its duals
// too):
//
//	maximise   sum_j f_j x_j
//	subject to sum_j a_ij x_j <= C_i   for every slot i  (capacity rows)
//	           0 <= x_j <= D_j         for every product j (forecast demand)
//
// A product is a fare class over the slots it takes (a_ij = 1). The dual
// values pi_i of the capacity rows are the bid prices: a request is worth
// taking when its fare covers the sum of the bid prices of what it takes,
// its displacement cost. Where the optimum's duals are not unique (a slot
// whose capacity exactly meets the demand planned on it), the smallest are
// chosen: the revenue one more unit of the slot would add, never more.

// Product is one column of the bid-price LP: a fare class over a set of
// slots, with its fare per unit and its forecast demand in units.
type Product struct {
	Fare   float64
	Demand float64
	// Slots are the indices of the capacity rows the product takes, each
	// at most once.
	Slots []int
}

// NetworkSolution is the LP's optimum: the planned sales per product, the
// revenue, and one bid price per slot.
type NetworkSolution struct {
	Allocation []float64
	Revenue    float64
	BidPrices  []float64
}

// lpTol is the simplex's tolerance on reduced costs; fares and demands are
// money and units of ordinary size, so 1e-9 is far below what matters.
const lpTol = 1e-9

// NetworkBidPrices solves the LP above with gonum's simplex: the primal for
// the allocation and the revenue, then the dual held at that revenue for
// the smallest bid prices. Slots no product takes have bid price 0.
// An LP the simplex cannot solve (a numerical failure: the LP itself is
// always feasible and bounded) is an error of kind Other.
func NetworkBidPrices(capacity []float64, products []Product) (NetworkSolution, error) {
	const op slotfare.Op = "pricing.NetworkBidPrices"
	if err := checkNetwork(op, capacity, products); err != nil {
		return NetworkSolution{}, err
	}
	x, revenue, err := solvePrimal(capacity, products)
	if err != nil {
		return NetworkSolution{}, slotfare.E(op, slotfare.Other, err)
	}
	pi, err := solveDual(capacity, products, revenue)
	if err != nil {
		return NetworkSolution{}, slotfare.E(op, slotfare.Other, err)
	}
	return NetworkSolution{Allocation: x, Revenue: revenue, BidPrices: pi}, nil
}

func checkNetwork(op slotfare.Op, capacity []float64, products []Product) error {
	if len(capacity) == 0 {
		return slotfare.Errorf(op, "capacity", "at least one slot is needed")
	}
	for i, c := range capacity {
		if !finite(c) || c < 0 {
			return slotfare.Errorf(op, "capacity["+strconv.Itoa(i)+"]", "must be finite and >= 0, got %v", c)
		}
	}
	for j, p := range products {
		field := func(name string) string { return "products[" + strconv.Itoa(j) + "]." + name }
		switch {
		case !finite(p.Fare) || p.Fare < 0:
			return slotfare.Errorf(op, field("fare"), "must be finite and >= 0, got %v", p.Fare)
		case !finite(p.Demand) || p.Demand < 0:
			return slotfare.Errorf(op, field("demand"), "must be finite and >= 0, got %v", p.Demand)
		case len(p.Slots) == 0:
			return slotfare.Errorf(op, field("slots"), "a product takes at least one slot")
		}
		seen := map[int]bool{}
		for _, s := range p.Slots {
			if s < 0 || s >= len(capacity) || seen[s] {
				return slotfare.Errorf(op, field("slots"), "slot %d is out of range or repeated (have %d slots)", s, len(capacity))
			}
			seen[s] = true
		}
	}
	return nil
}

// solvePrimal solves min -f.x in standard form: columns x (n), capacity
// slacks (m), demand slacks (n); rows capacity (m) then demand (n).
func solvePrimal(capacity []float64, products []Product) ([]float64, float64, error) {
	m, n := len(capacity), len(products)
	a := mat.NewDense(m+n, 2*n+m, nil)
	b := make([]float64, m+n)
	c := make([]float64, 2*n+m)
	for i := range m {
		a.Set(i, n+i, 1)
		b[i] = capacity[i]
	}
	for j, p := range products {
		c[j] = -p.Fare
		for _, s := range p.Slots {
			a.Set(s, j, 1)
		}
		a.Set(m+j, j, 1)
		a.Set(m+j, n+m+j, 1)
		b[m+j] = p.Demand
	}
	opt, x, err := lp.Simplex(c, a, b, lpTol, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("primal: %w", err)
	}
	return x[:n], -opt, nil
}

// solveDual finds, among the duals (pi, mu >= 0 with sum_{i in j} pi_i +
// mu_j >= f_j, over the slots some product takes) that cost C.pi + D.mu =
// revenue, the one with the smallest sum(pi).
func solveDual(capacity []float64, products []Product, revenue float64) ([]float64, error) {
	used := map[int]int{} // slot -> column of its pi
	var slots []int
	for _, p := range products {
		for _, s := range p.Slots {
			if _, ok := used[s]; !ok {
				used[s] = len(slots)
				slots = append(slots, s)
			}
		}
	}
	pi := make([]float64, len(capacity))
	m, n := len(slots), len(products)
	if n == 0 {
		return pi, nil
	}
	// columns: pi (m), mu (n), surplus r (n), then for stage 2 the slack u.
	cols := m + 2*n + 1
	a := mat.NewDense(n+1, cols, nil)
	b := make([]float64, n+1)
	cost := make([]float64, cols)
	for j, p := range products {
		for _, s := range p.Slots {
			a.Set(j, used[s], 1)
		}
		a.Set(j, m+j, 1)
		a.Set(j, m+n+j, -1)
		b[j] = p.Fare
		cost[m+j] = p.Demand
	}
	for k, s := range slots {
		cost[k] = capacity[s]
	}
	// Every feasible dual costs at least the primal's revenue V (weak
	// duality), so C.pi + D.mu + u = V holds it at the optimum and one
	// solve finds the smallest bid prices there.
	for k := range m + n {
		a.Set(n, k, cost[k])
	}
	a.Set(n, cols-1, 1)
	b[n] = revenue + 1e-12*math.Max(1, math.Abs(revenue)) // room for rounding only
	second := make([]float64, cols)
	for k := range m {
		second[k] = 1
	}
	_, y, err := lp.Simplex(second, a, b, lpTol, nil)
	if err != nil {
		return nil, fmt.Errorf("dual: %w", err)
	}
	for k, s := range slots {
		pi[s] = y[k]
	}
	return pi, nil
}

// SlotBidPrice is the bid price of one slot whose classes take only that
// slot: then the LP is a continuous knapsack, filled from the highest fare
// down, and the smallest dual of its capacity row is the fare of the first
// class whose demand does not fit in what the higher classes left (0 when
// every class fits). classes are ordered highest fare first, as Allocate
// takes them; their Mean is the forecast demand in units.
func SlotBidPrice(capacity float64, classes []ClassDemand) (float64, error) {
	const op slotfare.Op = "pricing.SlotBidPrice"
	if !finite(capacity) || capacity < 0 {
		return 0, slotfare.Errorf(op, "capacity", "must be finite and >= 0, got %v", capacity)
	}
	if err := checkClasses(op, classes); err != nil {
		return 0, err
	}
	return slotBidPrice(capacity, classes), nil
}

func slotBidPrice(capacity float64, classes []ClassDemand) float64 {
	if m := MarginalClass(capacity, classes); m >= 0 {
		return classes[m].Fare
	}
	return 0
}

// BidPrices are the bid prices of many slots at once, one per slot, from
// each slot's own LP (SlotBidPrice). That decomposition is exact for the
// LP over (slot x class) with per-slot forecasts: a variable x_sk is class
// k's sales in slot s, each sits in one capacity row only, so nothing links
// two slots and the LP is a sum of independent per-slot LPs whose duals are
// the whole LP's. Slots are linked only by products that span several
// (NetworkBidPrices), which a per-slot forecast does not have.
func BidPrices(capacity float64, slots [][]ClassDemand) ([]float64, error) {
	const op slotfare.Op = "pricing.BidPrices"
	if !finite(capacity) || capacity < 0 {
		return nil, slotfare.Errorf(op, "capacity", "must be finite and >= 0, got %v", capacity)
	}
	out := make([]float64, len(slots))
	for s, cs := range slots {
		if err := checkClasses(op, cs); err != nil {
			return nil, slotfare.E(op, slotfare.Field("slots["+strconv.Itoa(s)+"]."+slotfare.FieldOf(err)), err)
		}
		out[s] = slotBidPrice(capacity, cs)
	}
	return out, nil
}

// BidPriceAllocation is bid-price control of one slot written as nested
// limits, so it is published and enforced where the limits are: the bid
// price pi is SlotBidPrice on the capacity (or the overbooking limit), a
// class whose fare is at least pi is open up to the whole capacity and
// every class below it is closed (protection = the capacity). Fares fall
// with the class, so the open classes are always the highest ones.
func BidPriceAllocation(capacity int, classes []ClassDemand) Allocation {
	pi := slotBidPrice(float64(capacity), classes)
	levels := make([]float64, len(classes)-1)
	for j := range levels {
		if classes[j+1].Fare < pi {
			levels[j] = float64(capacity)
		}
	}
	return nested(capacity, levels)
}
