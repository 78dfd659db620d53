package sim

import (
	"context"
	"slices"
	"sync"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking/config"
	"slotfare/overbook"
	"slotfare/pricing"
)

// StaticClass is the name of the one fare class of a resource on static
// pricing (S1).
const StaticClass = "static"

// StaticPricing returns a copy of s where the resources ids sell one fare
// class at tau in every period, open to every user, with no protection
// levels: seed 004's Scenario 1 (Sec. 7.7.1, "a static pricing method with
// tau_s = {1.9, 2.8} (without RM)"). Every user buys it there. Its penalty
// rate and denied-cost factor are the middle class's of Table 7.9 (10%, 4),
// which matter only when users cancel or are denied.
func StaticPricing(s *Scenario, ids []string, tau decimal.Decimal) (*Scenario, error) {
	out := *s
	out.Config.Resources = slices.Clone(s.Config.Resources)
	for _, id := range ids {
		i := slices.IndexFunc(out.Config.Resources, func(rc config.ResourceConfig) bool { return rc.ID == id })
		if i < 0 {
			return nil, slotfare.Errorf("sim.StaticPricing", "resources", "no resource %q", id)
		}
		rc := &out.Config.Resources[i]
		cal, err := rc.RateCalendar()
		if err != nil {
			return nil, err
		}
		taus := map[string]decimal.Decimal{}
		for _, p := range cal.PeriodNames() {
			taus[p] = tau
		}
		rc.FareClasses = []pricing.FareClass{{Name: StaticClass, Rank: 1, Tau: taus, PenaltyRate: decimal.RequireFromString("0.10"),
			DeniedCostFactor: decimal.NewFromInt(4)}}
		rc.Limits.ProtectionLevels = nil
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return &out, nil
}

// WithOverbooking returns a copy of s where the resources ids overbook
// with policy and resolve excess shows with denial (the service level is
// the resource's, 1% in the built-in scenario as in Sec. 7.7.1).
func WithOverbooking(s *Scenario, ids []string, policy overbook.Policy, denial overbook.DenialStrategy) (*Scenario, error) {
	out := *s
	out.Config.Resources = slices.Clone(s.Config.Resources)
	for _, id := range ids {
		i := slices.IndexFunc(out.Config.Resources, func(rc config.ResourceConfig) bool { return rc.ID == id })
		if i < 0 {
			return nil, slotfare.Errorf("sim.WithOverbooking", "resources", "no resource %q", id)
		}
		rc := &out.Config.Resources[i]
		rc.Overbooking.Policy, rc.Overbooking.Denial = policy, denial
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return &out, nil
}

// RunSpec is one run of an experiment: its name, scenario and options.
type RunSpec struct {
	Name     string
	Scenario *Scenario
	Options  Options
}

// RunAll runs the specs with at most workers at once and returns the
// results in the specs' order. Each run is its own service, clock and
// random streams (booking ids included), so its result does not depend on
// how the runs are scheduled.
//
// Specs that name the same *Scenario with the same options (rm's S2 and
// overbooking's run without overbooking or CNS) are one run: it is made
// once and its result given to each.
func RunAll(ctx context.Context, specs []RunSpec, workers int, progress func(run int, done float64)) ([]*Result, error) {
	out := make([]*Result, len(specs))
	errs := make([]error, len(specs))
	type key struct {
		s              *Scenario
		seed           uint64
		cancel, noShow bool
		tick, sample   int64
		warmup         int
	}
	first := map[key]int{}
	same := make([]int, len(specs)) // the spec whose run i's is
	var todo []int
	for i, sp := range specs {
		o := sp.Options
		k := key{sp.Scenario, o.Seed, o.Cancel, o.NoShow, o.TickSeconds, o.SampleSeconds, o.WarmupDays}
		if j, ok := first[k]; ok {
			same[i] = j
			continue
		}
		first[k], same[i] = i, i
		todo = append(todo, i)
	}
	one := func(i int) {
		o := specs[i].Options
		if progress != nil {
			o.Progress = func(f float64) { progress(i, f) }
		}
		out[i], errs[i] = Run(ctx, specs[i].Scenario, o)
		if progress != nil && errs[i] == nil {
			progress(i, 1)
		}
	}
	workers = max(1, min(workers, len(todo)))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				one(i)
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, j := range same {
		if j != i {
			out[i], errs[i] = out[j], errs[j]
			if progress != nil && errs[i] == nil {
				progress(i, 1)
			}
		}
	}
	for i, err := range errs {
		if err != nil {
			return nil, slotfare.E(slotfare.Op("sim.RunAll"), "run "+specs[i].Name, err)
		}
	}
	return out, nil
}

// RMSpecs are the runs of the `rm` experiment (seed 004 Sec. 7.7.2): S1 with
// the compared resources (RAL and Bologna in the thesis: CompareResources)
// on static pricing at tau_s = 1.9 (Table 7.11) and 2.8 (Table 7.12), and S2
// with RM everywhere; no cancellations or no-shows.
func RMSpecs(s *Scenario, static []string, seed uint64) ([]RunSpec, error) {
	if err := checkCompared(s, static); err != nil {
		return nil, err
	}
	var specs []RunSpec
	for _, tau := range []string{"1.9", "2.8"} {
		s1, err := StaticPricing(s, static, decimal.RequireFromString(tau))
		if err != nil {
			return nil, err
		}
		specs = append(specs, RunSpec{Name: "S1 tau_s " + tau, Scenario: s1, Options: Options{Seed: seed}})
	}
	specs = append(specs, RunSpec{Name: "S2", Scenario: s, Options: Options{Seed: seed}})
	return specs, nil
}

// OverbookingRun names one run of the `overbooking` experiment.
type OverbookingRun struct {
	Policy         overbook.Policy
	Denial         overbook.DenialStrategy
	Cancel, NoShow bool
}

// Mode names what users do besides showing: "none", "cns" (cancellations
// and no-shows) or "no-shows".
func (r OverbookingRun) Mode() string {
	switch {
	case r.Cancel && r.NoShow:
		return "cns"
	case r.NoShow:
		return "no-shows"
	case r.Cancel:
		return "cancellations"
	}
	return "none"
}

// OverbookingResources are the resources the thesis compares, in `rm` and
// in `overbooking` (Sec. 7.7.2: RAL and Bologna on static pricing; Sec.
// 7.7.3: "if we set RAL and Bologna to use overbooking policies").
var OverbookingResources = []string{"RAL", "Bologna"}

// CompareResources are the resources rm and overbooking compare on s when
// the caller names none: the thesis's RAL and Bologna when s has both (the
// built-in eu-datagrid), else every resource of s, so that a provider's own
// scenario runs the experiments on all its resources.
func CompareResources(s *Scenario) []string {
	if checkCompared(s, OverbookingResources) == nil {
		return slices.Clone(OverbookingResources)
	}
	out := make([]string, len(s.Config.Resources))
	for i, rc := range s.Config.Resources {
		out[i] = rc.ID
	}
	return out
}

// checkCompared refuses an empty list, an id s does not have, and an id
// given twice (Invalid, field "resources").
func checkCompared(s *Scenario, ids []string) error {
	const op slotfare.Op = "sim.Compare"
	if len(ids) == 0 {
		return slotfare.Errorf(op, "resources", "name at least one resource to compare")
	}
	for i, id := range ids {
		if !slices.ContainsFunc(s.Config.Resources, func(rc config.ResourceConfig) bool { return rc.ID == id }) {
			return slotfare.Errorf(op, "resources", "the scenario has no resource %q", id)
		}
		if slices.Contains(ids[:i], id) {
			return slotfare.Errorf(op, "resources", "%q given twice", id)
		}
	}
	return nil
}

// OverbookingSpecs are the runs of the `overbooking` experiment (seed 004
// Sec. 7.7.3): no overbooking without and with cancellations and no-shows
// (Table 7.13), then the compared resources (RAL and Bologna in the thesis)
// overbooking with each policy and denial strategy (Fig. 7.9-7.12, Table 7.14), under CNS and again with
// no-shows only. The second set is ours: it compares the denial strategies
// where only no-shows thin the bookings, so the limits stay near the
// capacity.
func OverbookingSpecs(s *Scenario, ids []string, seed uint64) ([]RunSpec, []OverbookingRun, error) {
	if err := checkCompared(s, ids); err != nil {
		return nil, nil, err
	}
	runs := []OverbookingRun{{overbook.None, overbook.DCF, false, false}, {overbook.None, overbook.DCF, true, true}}
	for _, cancel := range []bool{true, false} {
		for _, p := range []overbook.Policy{overbook.Probability, overbook.Risk, overbook.ServiceLevel} {
			for _, d := range []overbook.DenialStrategy{overbook.Lottery, overbook.DCF, overbook.LCDCF} {
				runs = append(runs, OverbookingRun{p, d, cancel, true})
			}
		}
	}
	var specs []RunSpec
	for _, r := range runs {
		sc := s
		if r.Policy != overbook.None {
			var err error
			if sc, err = WithOverbooking(s, ids, r.Policy, r.Denial); err != nil {
				return nil, nil, err
			}
		}
		name := string(r.Policy) + "/" + string(r.Denial) + " " + r.Mode()
		specs = append(specs, RunSpec{Name: name, Scenario: sc, Options: Options{Seed: seed, Cancel: r.Cancel, NoShow: r.NoShow}})
	}
	return specs, runs, nil
}
