package sim_test

import (
	"math"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare/booking/sim"
)

// TestPoliciesBoundAboveEveryPolicy: RAL alone on eu-datagrid-priced for
// one day, at a light and an overloaded offered load and two seeds: the
// hindsight bound is at least what every RM method and every fixed price
// earned in the window; the best fixed price earned at least every price
// of the ladder (the search is the exhaustive grid, and reports its
// best); the opportunity is (RM - best) / (bound - best); the bound was
// computed on the arrivals the runs met; the sweep's load is the one
// asked.
func TestPoliciesBoundAboveEveryPolicy(t *testing.T) {
	s, err := sim.EUDataGridPriced(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 2} {
		specs, points, err := sim.PolicySpecs(s, []string{"RAL"}, []float64{0.5, 5}, seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		res := runAll(t, specs)
		runs, err := sim.PoliciesSummary(points, res, seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, run := range runs {
			pt := points[i]
			if got, err := sim.OfferedLoad(pt.Scenario, "RAL"); err != nil || math.Abs(got-pt.Load) > 1e-9*pt.Load {
				t.Errorf("load %v: the scenario offers %v (%v)", pt.Load, got, err)
			}
			bound := decimal.RequireFromString(run.Bound)
			best := decimal.RequireFromString(run.BestFixed.Revenue)
			t.Logf("seed %d load %v: best fixed %s at %s, bound %s, methods %+v", seed, run.Load, run.BestFixed.Revenue, run.BestFixed.Tau, run.Bound, run.Methods)
			for j := pt.First; j < pt.First+len(pt.Methods)+len(pt.Ladder)+len(pt.Above); j++ {
				if r := res[j].Resource("RAL").RevenueInWindow; r.GreaterThan(bound) {
					t.Errorf("seed %d load %v: %s earned %s, above the bound %s", seed, run.Load, specs[j].Name, r, bound)
				}
			}
			for k, f := range run.Fixed[:len(pt.Ladder)] {
				if r := decimal.RequireFromString(f.Revenue); r.GreaterThan(best) {
					t.Errorf("seed %d load %v: fixed %s earned %s, more than the best fixed %s", seed, run.Load, f.Tau, f.Revenue, run.BestFixed.Revenue)
				} else if r.Equal(best) && f.Tau != run.BestFixed.Tau && k < indexOf(run.Fixed, run.BestFixed.Tau) {
					t.Errorf("seed %d load %v: fixed %s earned as much as the best, %s, at a lower price", seed, run.Load, f.Tau, run.BestFixed.Tau)
				}
			}
			arrivals := sumArrivals(res[pt.First].Streams)
			for _, f := range run.Fixed {
				if f.BoughtUp != 0 || f.Occupancy < 0 || f.Occupancy > 1 || f.Booked+f.Refused > arrivals {
					t.Errorf("seed %d load %v: fixed %s: %+v of %d arrivals: want none bought up (one class), occupancy in [0, 1]", seed, run.Load, f.Tau, f.PolicyUse, arrivals)
				}
			}
			if low := run.Fixed[0]; low.Booked == 0 || low.Occupancy == 0 {
				t.Errorf("seed %d load %v: nobody booked at the lowest fare %s: %+v", seed, run.Load, low.Tau, low.PolicyUse)
			}
			if !bound.GreaterThan(best) {
				t.Errorf("seed %d load %v: bound %s not above the best fixed %s", seed, run.Load, bound, best)
			}
			for m, pm := range run.Methods {
				rm := decimal.RequireFromString(pm.Revenue)
				want, _ := rm.Sub(best).Div(bound.Sub(best)).Float64()
				if math.Abs(pm.Opportunity-want) > 1e-4 || pm.Opportunity > 1 {
					t.Errorf("seed %d load %v %s: opportunity %v, want %v (at most 1)", seed, run.Load, m, pm.Opportunity, want)
				}
			}
			reqs, err := sim.Demand(pt.Scenario, seed, "RAL", decimal.Zero)
			if err != nil {
				t.Fatal(err)
			}
			if arrived := res[pt.First].Streams; len(reqs) != sumArrivals(arrived) {
				t.Errorf("seed %d load %v: %d requests in the bound, %d arrivals in the runs", seed, run.Load, len(reqs), sumArrivals(arrived))
			}
		}
	}
}

func indexOf(fs []sim.FixedPrice, tau string) int {
	for i, f := range fs {
		if f.Tau == tau {
			return i
		}
	}
	return -1
}

func sumArrivals(ss []sim.StreamResult) int {
	n := 0
	for _, s := range ss {
		n += s.Arrivals
	}
	return n
}

// TestRunAllRunsIdenticalSpecsOnce: two specs of one scenario with equal
// options share one run's result; another seed is another run.
func TestRunAllRunsIdenticalSpecsOnce(t *testing.T) {
	s, err := sim.DecodeScenario([]byte(twoSitesText(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Days = 1
	var mu sync.Mutex
	calls := map[int]int{}
	res, err := sim.RunAll(bg, []sim.RunSpec{{Name: "S2", Scenario: s, Options: sim.Options{Seed: 1}},
		{Name: "none", Scenario: s, Options: sim.Options{Seed: 1}}, {Name: "other", Scenario: s, Options: sim.Options{Seed: 2}}}, 2,
		func(run int, done float64) {
			mu.Lock()
			defer mu.Unlock()
			if done == 1 {
				calls[run]++
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if res[0] != res[1] || res[0] == res[2] {
		t.Errorf("results %p %p %p: want the first two one run, the third another", res[0], res[1], res[2])
	}
	if calls[0] != 1 || calls[1] != 1 || calls[2] != 1 {
		t.Errorf("runs done %v: want each reported done once", calls)
	}
}
