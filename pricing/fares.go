package pricing

import (
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/optimize"

	"slotfare"
)

// Price-based revenue management: a fare class's users answer the price
// they are quoted, and the seller chooses the price. With a class's
// acceptance curve known, the fare of most revenue per request maximises
// tau x Accept(tau); where capacity binds, every class's fare maximises
// (tau - mu) x Accept(tau) for the capacity's shadow price mu, the
// smallest that fits the load (the deterministic multi-product pricing
// problem, Talluri and van Ryzin, "The Theory and Practice of Revenue
// Management", Sec. 5.2; Gallego and van Ryzin, "Optimal dynamic pricing
// of inventories with stochastic demand over finite horizons", 1994).

// PriceResponse is the share of a class's users quoted tau who book:
// Accept(tau) = 1 / (1 + (tau/Median)^Slope), a log-logistic willingness
// to pay (logistic in ln tau) of median Median.
type PriceResponse struct{ Median, Slope float64 }

// Accept is the share of users quoted tau who book.
func (r PriceResponse) Accept(tau float64) float64 {
	return 1 / (1 + math.Pow(tau/r.Median, r.Slope))
}

// PriceObservation is Offered users quoted Tau, Taken of whom booked.
type PriceObservation struct{ Tau, Offered, Taken float64 }

// ResponsePriorSD is the prior's standard deviation of ln Median and of
// Slope in FitPriceResponse.
type ResponsePriorSD struct{ LnMedian, Slope float64 }

// MinSlope is the flattest response FitPriceResponse returns: flatter
// than 1, revenue would grow with the price without end.
const MinSlope = 1.05

// FitPriceResponse is the maximum a-posteriori response for obs under a
// Gaussian prior on (ln Median, Slope) centred on prior: the binomial
// likelihood of each tau's takes, maximised by Nelder-Mead. No
// observations: the prior. Errors are Invalid naming the field.
func FitPriceResponse(obs []PriceObservation, prior PriceResponse, sd ResponsePriorSD) (PriceResponse, error) {
	const op slotfare.Op = "pricing.FitPriceResponse"
	if err := checkFit(op, obs, prior, sd); err != nil {
		return PriceResponse{}, err
	}
	if len(obs) == 0 {
		return prior, nil
	}
	a0, s0 := math.Log(prior.Median), prior.Slope
	negLogPost := func(x []float64) float64 {
		a, s := x[0], math.Max(x[1], MinSlope)
		v := sq(a-a0)/(2*sd.LnMedian*sd.LnMedian) + sq(s-s0)/(2*sd.Slope*sd.Slope)
		for _, o := range obs {
			z := s * (math.Log(o.Tau) - a)
			soft := z // ln(1 + e^z), exact past 30
			if z < 30 {
				soft = math.Log1p(math.Exp(z))
			}
			// ln Accept = -soft, ln(1 - Accept) = z - soft
			v += o.Taken*soft - (o.Offered-o.Taken)*(z-soft)
		}
		return v
	}
	res, err := optimize.Minimize(optimize.Problem{Func: negLogPost}, []float64{a0, s0},
		&optimize.Settings{FuncEvaluations: 4000}, &optimize.NelderMead{})
	if res == nil {
		return PriceResponse{}, slotfare.E(op, slotfare.Other, err)
	}
	return PriceResponse{Median: math.Exp(res.X[0]), Slope: math.Max(res.X[1], MinSlope)}, nil
}

func sq(x float64) float64 { return x * x }

func checkFit(op slotfare.Op, obs []PriceObservation, prior PriceResponse, sd ResponsePriorSD) error {
	bad := func(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }
	switch {
	case bad(prior.Median) || prior.Median <= 0 || bad(prior.Slope) || prior.Slope <= 0:
		return slotfare.Errorf(op, "prior", "median and slope must be positive, got %+v", prior)
	case bad(sd.LnMedian) || sd.LnMedian <= 0 || bad(sd.Slope) || sd.Slope <= 0:
		return slotfare.Errorf(op, "sd", "must be positive, got %+v", sd)
	}
	for i, o := range obs {
		switch {
		case bad(o.Tau) || o.Tau <= 0:
			return slotfare.Errorf(op, "obs["+strconv.Itoa(i)+"].tau", "must be positive, got %v", o.Tau)
		case bad(o.Offered) || o.Offered < 0:
			return slotfare.Errorf(op, "obs["+strconv.Itoa(i)+"].offered", "must be at least 0, got %v", o.Offered)
		case bad(o.Taken) || o.Taken < 0 || o.Taken > o.Offered:
			return slotfare.Errorf(op, "obs["+strconv.Itoa(i)+"].taken", "must be in [0, offered], got %v of %v", o.Taken, o.Offered)
		}
	}
	return nil
}

// FareDemand is one class in a rate period: Demand is what its users
// would hold if every one of them booked (uncensored demand, mean nodes),
// Response how many do at a fare.
type FareDemand struct {
	Demand   float64
	Response PriceResponse
}

// OptimalFares chooses, for classes by rank (0 the highest), one tau each
// from grid (ascending, positive) maximising sum tau D Accept(tau) under
// sum D Accept(tau) <= capacity, a higher class's tau never below a lower
// one's: the nested taus of most sum D (tau - mu) Accept(tau) (each
// class's own best (tau - mu) Accept(tau) where those are nested; ties:
// the higher tau), mu 0 when the load fits, else the smallest mu, by
// bisection to 1e-9 relative, whose load fits (or the top of the grid,
// when even that does not: booking limits ration the rest). On a grid the
// shadow price may leave capacity unsold, so the fares are then improved
// one class at a time while that earns more and fits. It returns the taus
// and mu. A class of no demand sits at the highest tau the nesting
// allows: it sells nothing whatever its fare.
func OptimalFares(classes []FareDemand, capacity float64, grid []float64) ([]float64, float64, error) {
	const op slotfare.Op = "pricing.OptimalFares"
	if err := checkFares(op, classes, capacity, grid); err != nil {
		return nil, 0, err
	}
	taus, load := faresAt(classes, grid, 0)
	mu := 0.0
	if load > capacity {
		lo, hi := 0.0, grid[len(grid)-1]
		for hi-lo > 1e-9*math.Max(1, hi) {
			m := (lo + hi) / 2
			if _, l := faresAt(classes, grid, m); l > capacity {
				lo = m
			} else {
				hi = m
			}
		}
		mu = hi
		taus, _ = faresAt(classes, grid, mu)
	}
	if mu > 0 {
		improveFares(classes, capacity, grid, taus)
	}
	return taus, mu, nil
}

// improveFares makes the move that earns most, keeping the load within
// capacity and the fares nested, until none earns more (a bounded number
// of rounds: each move earns strictly more). A move sets one or two
// disjoint runs of classes (by rank) each to one grid tau: classes that
// share a fare can only part by some rising and others falling together.
func improveFares(classes []FareDemand, capacity float64, grid []float64, taus []float64) {
	n := len(classes)
	at := make([]int, n)         // grid index of each class's fare
	sold := make([][]float64, n) // sold[c][g]: what class c sells at grid[g]
	for c, cl := range classes {
		at[c] = slices.Index(grid, taus[c])
		sold[c] = make([]float64, len(grid))
		for g, tau := range grid {
			sold[c][g] = cl.Demand * cl.Response.Accept(tau)
		}
	}
	var runs [][2]int // runs of classes [first, last]
	for a := range n {
		for b := a; b < n; b++ {
			runs = append(runs, [2]int{a, b})
		}
	}
	set := func(r [2]int, g int) {
		for c := r[0]; c <= r[1]; c++ {
			at[c] = g
		}
	}
	best, _, _ := fareTotals(grid, sold, at)
	was := slices.Clone(at)
	for round := 0; round < 8*n*len(grid); round++ {
		var move []int
		for _, u := range runs {
			for _, v := range runs {
				if v != u && v[0] <= u[1] {
					continue // v must be u itself or a run below it
				}
				for gu := range grid {
					for gv := range grid {
						if v == u && gv != gu {
							continue
						}
						set(u, gu)
						set(v, gv)
						if r, l, ok := fareTotals(grid, sold, at); ok && l <= capacity && r > best*(1+1e-12) {
							best, move = r, slices.Clone(at)
						}
						copy(at, was)
					}
				}
			}
		}
		if move == nil {
			break
		}
		copy(at, move)
		copy(was, move)
	}
	for c := range at {
		taus[c] = grid[at[c]]
	}
}

// fareTotals is the revenue and load of the fares at grid indices at, and
// whether they are nested.
func fareTotals(grid []float64, sold [][]float64, at []int) (rev, load float64, nested bool) {
	for c, g := range at {
		if c > 0 && g > at[c-1] {
			return 0, 0, false
		}
		rev, load = rev+grid[g]*sold[c][g], load+sold[c][g]
	}
	return rev, load, true
}

// faresAt is the nested taus on grid (a higher class never below a lower
// one) of most Lagrangian revenue sum D (tau - mu) Accept(tau) for shadow
// price mu, and the load they sell. Where every class's own best tau is
// already nested these are those taus; where a lower class would sell
// above a higher one the classes share the tau that earns most between
// them, rather than the higher class being raised to the lower's (which
// can throw away most of the revenue of a class that buys only cheap).
// Dynamic programming from the lowest class up: best[g] is the most the
// classes from c down earn with class c at grid[g] or below; ties take
// the higher tau.
func faresAt(classes []FareDemand, grid []float64, mu float64) ([]float64, float64) {
	n := len(classes)
	choice := make([][]int, n) // choice[c][g]: class c's tau index when the class above is at grid[g]
	below := make([]float64, len(grid))
	for c := n - 1; c >= 0; c-- {
		choice[c] = make([]int, len(grid))
		best, arg := math.Inf(-1), 0
		for g, tau := range grid {
			r := classes[c].Response
			if v := classes[c].Demand*(tau-mu)*r.Accept(tau) + below[g]; v >= best {
				best, arg = v, g
			}
			choice[c][g] = arg
			below[g] = best
		}
	}
	taus := make([]float64, n)
	load, g := 0.0, len(grid)-1
	for c := range classes {
		g = choice[c][g]
		taus[c] = grid[g]
		load += classes[c].Demand * classes[c].Response.Accept(grid[g])
	}
	return taus, load
}

func checkFares(op slotfare.Op, classes []FareDemand, capacity float64, grid []float64) error {
	bad := func(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }
	switch {
	case len(grid) == 0:
		return slotfare.Errorf(op, "grid", "no taus to choose from")
	case !slices.IsSorted(grid) || grid[0] <= 0 || bad(grid[len(grid)-1]):
		return slotfare.Errorf(op, "grid", "want positive taus in ascending order, got %v", grid)
	case bad(capacity) || capacity < 0:
		return slotfare.Errorf(op, "capacity", "must be at least 0, got %v", capacity)
	}
	for i, c := range classes {
		r := c.Response
		if bad(c.Demand) || c.Demand < 0 || bad(r.Median) || r.Median <= 0 || bad(r.Slope) || r.Slope <= 0 {
			return slotfare.Errorf(op, "classes["+strconv.Itoa(i)+"]", "want demand >= 0 and a positive median and slope, got %+v", c)
		}
	}
	return nil
}

// FareGrid is n taus evenly spaced from lo to hi inclusive, rounded to
// two places, repeats dropped (the provider's fare bounds as choices).
func FareGrid(lo, hi float64, n int) ([]float64, error) {
	const op slotfare.Op = "pricing.FareGrid"
	switch {
	case !(lo > 0) || math.IsInf(lo, 0):
		return nil, slotfare.Errorf(op, "lo", "must be positive, got %v", lo)
	case !(hi > lo) || math.IsInf(hi, 0):
		return nil, slotfare.Errorf(op, "hi", "must be above lo %v, got %v", lo, hi)
	case n < 2:
		return nil, slotfare.Errorf(op, "n", "must be at least 2, got %d", n)
	}
	out := make([]float64, 0, n)
	for i := range n {
		t := math.Round((lo+(hi-lo)*float64(i)/float64(n-1))*100) / 100
		if len(out) == 0 || t != out[len(out)-1] {
			out = append(out, t)
		}
	}
	return out, nil
}
