package sim

import (
	"fmt"
	"math"
	"slices"

	"slotfare"
	"slotfare/booking/config"
	"slotfare/overbook"
)

// edgResource is one row of seed 004's Table 7.7 beyond what the demo
// configuration holds: the CPU rating and the resource-level (business)
// arrival rates per second in peak, off-peak and super saver.
type edgResource struct {
	id     string
	rating float64
	rates  [3]float64
}

// Table 7.7 of seed 004 (Sec. 7.7.1).
var edgResources = []edgResource{
	{"RAL", 49000, [3]float64{0.01670, 0.00835, 0.004175}},
	{"Imperial", 62000, [3]float64{0.01670, 0.00835, 0.004175}},
	{"NorduGrid", 20000, [3]float64{0.00835, 0.004175, 0.0020875}},
	{"NIKHEF", 21000, [3]float64{0.00835, 0.004175, 0.0020875}},
	{"Lyon", 14000, [3]float64{0.00835, 0.004175, 0.0020875}},
	{"CERN", 70000, [3]float64{0.03340, 0.00167, 0.000835}},
	{"Milano", 7000, [3]float64{0.00418, 0.0020875, 0.00104375}},
	{"Torino", 3000, [3]float64{0.00167, 0.000835, 0.0004175}},
	{"Rome", 6000, [3]float64{0.00418, 0.00209, 0.001045}},
	{"Bologna", 80000, [3]float64{0.03340, 0.0167, 0.00835}},
}

// edgLevel is one row of Table 7.8: the Grid (premium) or a VO's (budget)
// arrivals, with the mean rating and runtime its jobs are measured on.
type edgLevel struct {
	name, vo string
	rating   float64
	runtime  float64 // mean, seconds
	rates    [3]float64
}

// Table 7.8 of seed 004.
var edgLevels = []edgLevel{
	{"grid", "", 56000, 2 * 3600, [3]float64{0.13812, 0.02290, 0.01979}},
	{"vo-1", "1", 56000, 5 * 3600, [3]float64{0.05087, 0.02092, 0.01913}},
	{"vo-2", "2", 20000, 5 * 3600, [3]float64{0.05954, 0.00537, 0.00295}},
	{"vo-3", "3", 60000, 5 * 3600, [3]float64{0.15901, 0.00097, 0.00046}},
	{"vo-4", "4", 68000, 5 * 3600, [3]float64{0.07098, 0.00672, 0.00257}},
}

// The users of Table 7.9: booking period (lead), search limit and
// cancellation rate per user category.
var edgUsers = map[string]struct {
	lead, search int64
	cancel       float64
}{
	"premium":  {2 * 3600, 2 * 3600, 0.25},
	"business": {4 * 3600, 4 * 3600, 0.45},
	"budget":   {6 * 3600, 24 * 3600, 0.85},
}

var edgPeriods = [3]string{"peak", "off_peak", "super_saver"}

func rates(r [3]float64) map[string]float64 {
	return map[string]float64{edgPeriods[0]: r[0], edgPeriods[1]: r[1], edgPeriods[2]: r[2]}
}

// EUDataGrid is the built-in scenario `eu-datagrid`: seed 004's Sec. 7.7
// evaluation. The resources are the demo configuration (testdata/demo.json:
// Table 7.7's nodes and base costs, Table 7.6's fare classes and rate
// periods, Table 7.10's initial protection levels) with no overbooking;
// the workload is 15 Poisson streams: the Grid's premium users on every
// resource choosing the earliest completion, each resource's business
// users, and each VO's budget users choosing the cheapest resource of their
// VO (Tables 7.7-7.9), with the no-show probabilities of Sec. 7.7.1 by the
// period of the start. Business runtimes are not scaled (Sec. 7.7.1: each
// business user submits to one resource); the others are scaled by the
// level's rating over the resource's.
func EUDataGrid(days int) (*Scenario, error) {
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		return nil, slotfare.E(slotfare.Op("sim.EUDataGrid"), err)
	}
	// GarQ's fixed interval in the thesis is 30 days (Sec. 7.7.1): the
	// horizon booking control lays its limits out over.
	cfg.BookAheadSeconds = 30 * 24 * 3600
	for i := range cfg.Resources {
		rc := &cfg.Resources[i]
		rc.Overbooking = config.OverbookingConfig{Policy: overbook.None, ServiceLevel: 0.01, Denial: overbook.DCF}
		// A job scaled to a slow resource may run for days (Torino: 56,000
		// / 3,000 times the Grid's runtime): one user's hold may cover
		// the resource for its whole search window.
		rc.HoldLimits.MaxHeldNodeSeconds = int64(rc.Nodes) * 30 * 24 * 3600
	}
	s := &Scenario{Name: "eu-datagrid", Config: cfg, Start: DefaultStart, Days: days, Ratings: map[string]float64{},
		NoShow: map[string]float64{"peak": 0.05, "off_peak": 0.10, "super_saver": 0.15}}
	byVO := map[string][]string{}
	var all []string
	vo := map[string]string{}
	for _, rc := range cfg.Resources {
		vo[rc.ID] = string(rc.VO)
	}
	for _, r := range edgResources {
		if _, ok := vo[r.id]; !ok {
			return nil, slotfare.E(slotfare.Op("sim.EUDataGrid"), slotfare.Other, fmt.Sprintf("the demo configuration has no resource %s", r.id))
		}
		s.Ratings[r.id] = r.rating
		all = append(all, r.id)
		byVO[vo[r.id]] = append(byVO[vo[r.id]], r.id)
	}
	user := func(class, v string, res []string, choice Choice, rating float64) Users {
		u := edgUsers[class]
		return Users{Class: class, VO: v, Resources: slices.Clone(res), Choice: choice, Rating: rating,
			LeadSeconds: u.lead, SearchSeconds: u.search, CancelRate: u.cancel}
	}
	g := edgLevels[0]
	s.Levels = append(s.Levels, Level{Name: g.name, Users: user("premium", "", all, EarliestCompletion, g.rating),
		Rates: rates(g.rates), MeanRuntime: g.runtime, Nodes: 1})
	for _, r := range edgResources {
		s.Levels = append(s.Levels, Level{Name: r.id, Users: user("business", vo[r.id], []string{r.id}, EarliestCompletion, 0),
			Rates: rates(r.rates), MeanRuntime: 3 * 3600, Nodes: 1})
	}
	for _, l := range edgLevels[1:] {
		s.Levels = append(s.Levels, Level{Name: l.name, Users: user("budget", l.vo, byVO[l.vo], Cheapest, l.rating),
			Rates: rates(l.rates), MeanRuntime: l.runtime, Nodes: 1})
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// EUDataGridPriced is `eu-datagrid-priced`: EUDataGrid whose users have a
// willingness to pay (PricedWillingness), so that demand responds to
// price: a user declines an offer priced above it and buys up where its
// class is closed and it can afford the next. The arrivals are
// EUDataGrid's, draw for draw, for the same seed.
func EUDataGridPriced(days int) (*Scenario, error) {
	s, err := EUDataGrid(days)
	if err != nil {
		return nil, err
	}
	s.Name = "eu-datagrid-priced"
	s.Levels = slices.Clone(s.Levels)
	for i := range s.Levels {
		w := PricedWillingness[s.Levels[i].Class]
		s.Levels[i].WillingnessToPay = &w
	}
	return s, s.Validate()
}

// PricedWillingness is eu-datagrid-priced's willingness to pay per user
// class, in multiples of the base cost (the unit of tau). The thesis
// gives none; Table 7.2 says only that budget users are highly price
// sensitive and business and premium users less so. The medians sit
// inside each class's fares of Table 7.6 (premium 1.88-3.38, business
// 1.56-2.81, budget 1.25-2.25), the spreads are wider for the less
// price-sensitive classes. Its own fares turn away, at peak / off-peak /
// super saver: premium 66% / 33% / 6%, business 68% / 30% / 3%, budget
// 80% / 34% / 2%; a fixed tau of 1.9 turns away 6%, 14% and 50%, one of
// 2.8 41%, 68% and 97%. These are a choice, to be replaced by a
// provider's own estimates, not fitted to any result.
var PricedWillingness = map[string]WillingnessToPay{
	"premium":  {Median: 3.0, Spread: 0.3},
	"business": {Median: 2.5, Spread: 0.25},
	"budget":   {Median: 1.9, Spread: 0.2},
}

// Loaded returns a copy of s with every level's arrival rate multiplied
// by x (`--load`); the resources are unchanged.
func (s *Scenario) Loaded(x float64) (*Scenario, error) {
	if !(x > 0) || x > 1000 || math.IsInf(x, 0) {
		return nil, slotfare.Errorf("sim.Loaded", "load", "must be in (0, 1000], got %v", x)
	}
	out := *s
	out.Levels = slices.Clone(s.Levels)
	for i := range out.Levels {
		r := map[string]float64{}
		for p, v := range out.Levels[i].Rates {
			r[p] = v * x
		}
		out.Levels[i].Rates = r
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return &out, nil
}

// Scaled returns a copy of s with every resource's nodes and initial
// protection levels, and every level's arrival rate, multiplied by k: the
// thesis divided the real clusters by ten for lack of memory (Sec. 7.7.1),
// so k = 10 is the testbed's real size under the same load per node.
// Traces are replayed as they are.
func (s *Scenario) Scaled(k int) (*Scenario, error) {
	if k < 1 || k > 100 {
		return nil, slotfare.Errorf("sim.Scaled", "scale", "must be in 1..100, got %d", k)
	}
	out := *s
	out.Config.Resources = slices.Clone(s.Config.Resources)
	for i := range out.Config.Resources {
		rc := &out.Config.Resources[i]
		rc.Nodes *= k
		rc.HoldLimits.MaxHeldNodeSeconds *= int64(k)
		if rc.Limits.ProtectionLevels != nil {
			pl := map[string][]float64{}
			for p, levels := range rc.Limits.ProtectionLevels {
				l := make([]float64, len(levels))
				for j, y := range levels {
					l[j] = y * float64(k)
				}
				pl[p] = l
			}
			rc.Limits.ProtectionLevels = pl
		}
	}
	out.Levels = slices.Clone(s.Levels)
	for i := range out.Levels {
		r := map[string]float64{}
		for p, x := range out.Levels[i].Rates {
			r[p] = x * float64(k)
		}
		out.Levels[i].Rates = r
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return &out, nil
}
