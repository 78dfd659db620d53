package sim

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking/config"
	"slotfare/pricing"
)

// PolicyLoads are the offered loads the policies experiment sweeps, from
// a light load to ten times the capacity.
var PolicyLoads = []float64{0.25, 0.5, 1, 2, 5, 10}

// RMMethods are the booking-control methods the engine offers, each run
// against the fixed prices and the bound.
var RMMethods = []pricing.LimitMethod{pricing.EMSRa, pricing.EMSRb, pricing.EMSRbMR, pricing.BidPrice, pricing.ThesisEMSR}

// BoundBucket is the hindsight bound's time bucket.
const BoundBucket = time.Hour

// Alone returns the scenario of resource id alone with the demand that
// would reach it: each level whose users may book id, with id as their
// only resource, at the share of the level's arrivals that id's nodes are
// of the nodes of all the level's resources (a user who may book several
// resources lands on one in proportion to its capacity). A resource's own
// users (the thesis's business users) come whole; traces are left out.
func Alone(s *Scenario, id string) (*Scenario, error) {
	const op slotfare.Op = "sim.Alone"
	nodes := map[string]int{}
	for _, rc := range s.Config.Resources {
		nodes[rc.ID] = rc.Nodes
	}
	if _, ok := nodes[id]; !ok {
		return nil, slotfare.Errorf(op, "resources", "the scenario has no resource %q", id)
	}
	out := *s
	out.Config.Resources = slices.DeleteFunc(slices.Clone(s.Config.Resources), func(rc config.ResourceConfig) bool { return rc.ID != id })
	out.Traces = nil
	out.Levels = nil
	out.Ratings = map[string]float64{}
	if r, ok := s.Ratings[id]; ok {
		out.Ratings[id] = r
	}
	for _, l := range s.Levels {
		if !slices.Contains(l.Resources, id) {
			continue
		}
		all := 0
		for _, r := range l.Resources {
			all += nodes[r]
		}
		share := float64(nodes[id]) / float64(all)
		l.Resources = []string{id}
		rates := map[string]float64{}
		for p, r := range l.Rates {
			rates[p] = r * share
		}
		l.Rates = rates
		out.Levels = append(out.Levels, l)
	}
	if len(out.Levels) == 0 {
		return nil, slotfare.Errorf(op, "resources", "no level's users may book %s", id)
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return &out, nil
}

// OfferedLoad is the node-seconds the levels of s ask of resource id per
// node-second of its capacity over the scenario's days: arrivals by rate
// period times each job's mean runtime (scaled to id) and nodes.
func OfferedLoad(s *Scenario, id string) (float64, error) {
	d, err := newWorkload(s, Options{})
	if err != nil {
		return 0, err
	}
	rc, ok := d.res[id]
	if !ok {
		return 0, slotfare.Errorf("sim.OfferedLoad", "resources", "the scenario has no resource %q", id)
	}
	end := s.Start.Add(time.Duration(s.Days) * 24 * time.Hour)
	asked := 0.0
	for i, l := range s.Levels {
		if !slices.Contains(l.Resources, id) {
			continue
		}
		pieces, err := d.rates[l.Resources[0]].Split(s.Start, end)
		if err != nil {
			return 0, err
		}
		perJob := l.MeanRuntime * d.streams[i].scale[id] * float64(min(l.Nodes, rc.Nodes))
		for _, pc := range pieces {
			asked += l.Rates[pc.Period] * pc.End.Sub(pc.Start).Seconds() * perJob
		}
	}
	return asked / (float64(rc.Nodes) * end.Sub(s.Start).Seconds()), nil
}

// FixedPrices are the fixed prices (tau) tried on rc: 18 evenly spaced
// from the lowest to the highest fare of its classes, since RM sells at
// those fares, and two above the ladder (1.25 and 1.5 times its top),
// reported beside as a sign the fares are set too low when one wins.
func FixedPrices(rc config.ResourceConfig) (ladder, above []decimal.Decimal) {
	var taus []decimal.Decimal
	for _, c := range rc.FareClasses {
		for _, t := range c.Tau {
			taus = append(taus, t)
		}
	}
	lo, hi := decimal.Min(taus[0], taus...), decimal.Max(taus[0], taus...)
	const n = 18
	step := hi.Sub(lo).Div(decimal.NewFromInt(n - 1))
	for k := range n {
		t := lo.Add(step.Mul(decimal.NewFromInt(int64(k)))).Round(2)
		if len(ladder) == 0 || !t.Equal(ladder[len(ladder)-1]) {
			ladder = append(ladder, t)
		}
	}
	return ladder, []decimal.Decimal{hi.Mul(decimal.RequireFromString("1.25")).Round(2), hi.Mul(decimal.RequireFromString("1.5")).Round(2)}
}

// PolicyPoint is one resource at one load in the policies experiment:
// its scenario alone, the runs made on it, and what they are.
type PolicyPoint struct {
	Resource string
	Load     float64
	Scenario *Scenario
	// Methods, Ladder and Above index the runs of the point in Specs:
	// first one per RM method, then the fixed prices.
	Methods       []pricing.LimitMethod
	Ladder, Above []decimal.Decimal
	First         int
}

// PolicySpecs lays out the policies experiment on s: for each resource
// ids and load, the resource alone (Alone) with its arrival rates scaled
// to that offered load, run with each RM method and at each fixed price;
// the same seed everywhere, so every policy meets the same users with the
// same willingness to pay (common random numbers).
func PolicySpecs(s *Scenario, ids []string, loads []float64, seed uint64, warmup int) ([]RunSpec, []PolicyPoint, error) {
	if err := checkCompared(s, ids); err != nil {
		return nil, nil, err
	}
	var specs []RunSpec
	var points []PolicyPoint
	for _, id := range ids {
		alone, err := Alone(s, id)
		if err != nil {
			return nil, nil, err
		}
		now, err := OfferedLoad(alone, id)
		if err != nil {
			return nil, nil, err
		}
		for _, load := range loads {
			sc, err := alone.Loaded(load / now)
			if err != nil {
				return nil, nil, err
			}
			pt := PolicyPoint{Resource: id, Load: load, Scenario: sc, Methods: methodsFor(sc.Config.Resources[0]), First: len(specs)}
			pt.Ladder, pt.Above = FixedPrices(sc.Config.Resources[0])
			opts := Options{Seed: seed, WarmupDays: warmup}
			name := fmt.Sprintf("%s load %g ", id, load)
			for _, m := range pt.Methods {
				rm := *sc
				rm.Config.Resources = slices.Clone(sc.Config.Resources)
				rm.Config.Resources[0].Limits = rm.Config.Resources[0].Limits.Clone()
				rm.Config.Resources[0].Limits.Method = m
				// Booking control sets the fares within the ladder the
				// fixed prices are searched over.
				rm.Config.Resources[0].Limits.Fares = &config.FareBounds{MinTau: pt.Ladder[0], MaxTau: pt.Ladder[len(pt.Ladder)-1]}
				specs = append(specs, RunSpec{Name: name + string(m), Scenario: &rm, Options: opts})
			}
			for _, tau := range slices.Concat(pt.Ladder, pt.Above) {
				fixed, err := StaticPricing(sc, []string{id}, tau)
				if err != nil {
					return nil, nil, err
				}
				specs = append(specs, RunSpec{Name: name + "fixed " + tau.String(), Scenario: fixed, Options: opts})
			}
			points = append(points, pt)
		}
	}
	return specs, points, nil
}

// methodsFor is RMMethods less the thesis's, which only a resource of
// three classes runs.
func methodsFor(rc config.ResourceConfig) []pricing.LimitMethod {
	if len(rc.FareClasses) == 3 {
		return RMMethods
	}
	return slices.DeleteFunc(slices.Clone(RMMethods), func(m pricing.LimitMethod) bool { return m == pricing.ThesisEMSR })
}

// PolicyRun is one resource at one load in summary.json's policies.
type PolicyRun struct {
	Resource string  `json:"resource"`
	Load     float64 `json:"load"`
	Days     int     `json:"days"`
	// BestFixed is the fixed price within the fare ladder that earned most
	// on this demand; AboveLadder the best price tried above the ladder,
	// present only when it earned more still.
	BestFixed   FixedPrice   `json:"best_fixed"`
	AboveLadder *FixedPrice  `json:"above_ladder,omitempty"`
	Fixed       []FixedPrice `json:"fixed"`
	// Bound is the hindsight bound (HindsightBound).
	Bound   string                  `json:"bound"`
	Methods map[string]PolicyMethod `json:"methods"`
}

// FixedPrice is one fixed price and what it earned in the window.
type FixedPrice struct {
	Tau     string `json:"tau"`
	Revenue string `json:"revenue"`
	PolicyUse
}

// PolicyUse is what the users made of a policy: the share of the
// window's node-seconds they held, how many booked, refused every offer
// as too dear, and bought a class up.
type PolicyUse struct {
	Occupancy float64 `json:"occupancy"`
	Booked    int     `json:"booked"`
	Refused   int     `json:"refused"`
	BoughtUp  int     `json:"bought_up"`
}

// useOf reads a run's PolicyUse on resource id.
func useOf(r *Result, id string) PolicyUse {
	u := PolicyUse{Occupancy: math.Round(r.Resource(id).Occupancy(r.Window)*1e4) / 1e4}
	for _, s := range r.Streams {
		u.Booked, u.Refused, u.BoughtUp = u.Booked+s.Booked, u.Refused+s.Refused, u.BoughtUp+s.BoughtUp
	}
	return u
}

// PolicyMethod is what an RM method earned in the window, and the share
// of the gap from the best fixed price to the bound it captured:
// (RM - best fixed) / (bound - best fixed), the airlines' revenue
// opportunity.
type PolicyMethod struct {
	Revenue     string  `json:"revenue"`
	Opportunity float64 `json:"opportunity"`
	PolicyUse
}

// PoliciesSummary reads the results of PolicySpecs' runs: per point, the
// best fixed price (the highest in-window revenue of the ladder's prices,
// the lowest price among equals), the hindsight bound on the same
// arrivals with every user's ceiling at least that price, and each
// method's revenue and opportunity.
func PoliciesSummary(points []PolicyPoint, results []*Result, seed uint64) ([]PolicyRun, error) {
	var out []PolicyRun
	for _, pt := range points {
		id := pt.Resource
		revenue := func(i int) decimal.Decimal { return results[pt.First+i].Resource(id).RevenueInWindow }
		fixed := func(i int, tau decimal.Decimal) FixedPrice {
			return FixedPrice{Tau: tau.StringFixed(2), Revenue: money(revenue(i)), PolicyUse: useOf(results[pt.First+i], id)}
		}
		run := PolicyRun{Resource: id, Load: pt.Load, Days: pt.Scenario.Days, Methods: map[string]PolicyMethod{}}
		best, bestTau := decimal.Zero, decimal.Zero
		for k, tau := range pt.Ladder {
			r := revenue(len(pt.Methods) + k)
			run.Fixed = append(run.Fixed, fixed(len(pt.Methods)+k, tau))
			if k == 0 || r.GreaterThan(best) {
				best, bestTau, run.BestFixed = r, tau, run.Fixed[k]
			}
		}
		top, topTau := best, bestTau
		for k, tau := range pt.Above {
			i := len(pt.Methods) + len(pt.Ladder) + k
			run.Fixed = append(run.Fixed, fixed(i, tau))
			if r := revenue(i); r.GreaterThan(top) {
				top, topTau = r, tau
				above := run.Fixed[len(run.Fixed)-1]
				run.AboveLadder = &above
			}
		}
		// Every user may pay up to the best fixed price tried and the top
		// of the ladder booking control sets fares within, so that the
		// bound is above every policy's revenue.
		reqs, err := Demand(pt.Scenario, seed, id, decimal.Max(topTau, pt.Ladder[len(pt.Ladder)-1]))
		if err != nil {
			return nil, err
		}
		bound := HindsightBound(reqs, pt.Scenario.Config.Resources[0].Nodes, results[pt.First].Window, BoundBucket)
		run.Bound = money(bound)
		for k, m := range pt.Methods {
			r := revenue(k)
			run.Methods[string(m)] = PolicyMethod{Revenue: money(r), Opportunity: Opportunity(r, best, bound), PolicyUse: useOf(results[pt.First+k], id)}
		}
		out = append(out, run)
	}
	return out, nil
}

// Opportunity is (rm - base) / (bound - base), rounded to four places; 0
// when the bound leaves no gap.
func Opportunity(rm, base, bound decimal.Decimal) float64 {
	gap := bound.Sub(base)
	if !gap.IsPositive() {
		return 0
	}
	f, _ := rm.Sub(base).Div(gap).Float64()
	return math.Round(f*1e4) / 1e4
}
