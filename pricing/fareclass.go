package pricing

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"slotfare"
)

// FareClass is one product a resource sells its nodes as: a name, a rank
// (1 = the highest, most expensive class), a price factor tau per rate
// period, the penalty rate alpha_p kept on a cancellation or no-show, the
// denied-service factor, and an optional virtual-organisation restriction
// (seed 004 Sec. 7.2.1-7.2.2, Tables 7.1, 7.6 and 7.9).
//
// Tau multiplies the resource's base cost (Eq. 7.12); the thesis asks for
// tau >= 1, so a reservation never costs less than the same run without one.
// Within a period, a higher class has a strictly higher tau (p_1 > p_2 > p_3,
// Sec. 7.2.2), which is also what the booking-limit optimiser needs.
//
// DeniedCostFactor is the ratio tau_ds / tau of Sec. 7.6.3, written as in
// Table 7.9 ("tau_ds = 5 tau_1"): a bumped booking is owed DeniedCostFactor
// times its reservation price. The thesis requires tau_ds > tau, so the factor
// is greater than 1.
//
// The JSON form is one element of the body of
// PUT /v1/resources/{id}/fare-classes:
// {"name":"premium","rank":1,"tau":{"peak":"3.38",...},"penalty_rate":"0",
// "denied_cost_factor":"5","vo":null}, and optionally "cancellation":
// [{"before_start_seconds":86400,"penalty_rate":"0.1"},..] (Schedule).
type FareClass struct {
	Name string                     `json:"name"`
	Rank int                        `json:"rank"`
	Tau  map[string]decimal.Decimal `json:"tau"`
	// WeekendTau, when set, is the tau of a period's pieces that fall on a
	// Saturday or Sunday in the calendar's zone (booking control's fares
	// by kind of day); a period it lacks takes Tau. Never configured.
	WeekendTau       map[string]decimal.Decimal `json:"-"`
	PenaltyRate      decimal.Decimal            `json:"penalty_rate"`
	DeniedCostFactor decimal.Decimal            `json:"denied_cost_factor"`
	VO               VO                         `json:"vo"`
	// Cancellation is the class's cancellation schedule by lead time,
	// earliest step first (nil: PenaltyRate at any lead time, the thesis's
	// alpha_p). PenaltyRate stays the no-show penalty either way.
	Cancellation []CancellationStep `json:"cancellation,omitempty"`
}

// VO names the virtual organisation a fare class is restricted to (Table
// 7.1's "same VO"); the empty VO means the class is open to every user. On
// the wire it is null (open), a string, or a whole number, which is kept as
// its decimal text, so "vo":1 and "vo":"1" are the same VO.
type VO string

// Open reports whether the class is open to users of any VO.
func (v VO) Open() bool { return v == "" }

// TauFor is the class's tau in the named rate period.
func (c FareClass) TauFor(period string) (decimal.Decimal, bool) {
	t, ok := c.Tau[period]
	return t, ok
}

// DeniedTau is tau_ds for the named period: DeniedCostFactor x tau
// (seed 004 Sec. 7.6.3, Table 7.9).
func (c FareClass) DeniedTau(period string) (decimal.Decimal, bool) {
	t, ok := c.Tau[period]
	if !ok {
		return decimal.Decimal{}, false
	}
	return t.Mul(c.DeniedCostFactor), true
}

// Admits reports whether a user of the given VO may buy this class: an open
// class admits everybody, a restricted one only members of its VO.
func (c FareClass) Admits(userVO VO) bool { return c.VO.Open() || c.VO == userVO }

// FareClassByName finds the class with the given name.
func FareClassByName(classes []FareClass, name string) (FareClass, bool) {
	for _, c := range classes {
		if c.Name == name {
			return c, true
		}
	}
	return FareClass{}, false
}

// FareClassesByRank returns a copy of classes ordered from rank 1 (highest)
// down, the order the booking-limit optimiser takes its fares in.
func FareClassesByRank(classes []FareClass) []FareClass {
	out := append([]FareClass(nil), classes...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rank < out[j].Rank })
	return out
}

// FaresInPeriod gives, for the classes ordered by rank, each class's tau in
// the period: the relative fares p_1 > p_2 > ... of Sec. 7.2.2 that EMSR needs
// (multiply by the base cost for money; EMSR's limits do not change under a
// common scale).
func FaresInPeriod(classes []FareClass, period string) ([]decimal.Decimal, error) {
	const op slotfare.Op = "pricing.FaresInPeriod"
	ranked := FareClassesByRank(classes)
	out := make([]decimal.Decimal, len(ranked))
	for i, c := range ranked {
		t, ok := c.Tau[period]
		if !ok {
			return nil, slotfare.Errorf(op, "tau."+period, "fare class %q has no tau for rate period %q", c.Name, period)
		}
		out[i] = t
	}
	return out, nil
}

// ValidateFareClasses checks a resource's whole list of fare classes against
// the names of its rate periods (RateCalendar.PeriodNames): at least one
// class; names unique and well formed; ranks exactly 1..n; a tau for every
// period and no other key, each tau >= 1 (Eq. 7.12) and strictly below the
// tau of every higher-ranked class in the same period (Sec. 7.2.2); penalty
// rate in [0, 1] (Sec. 7.6.2); denied-cost factor > 1, i.e. tau_ds > tau
// (Sec. 7.6.3). The error is slotfare.Invalid naming the JSON path of the
// first fault, e.g. "[1].tau.peak"; the list as a whole is "fare_classes".
//
// The service calls it on every PUT of fare classes and again, with the new
// names, on every PUT of rate periods.
func ValidateFareClasses(classes []FareClass, periodNames []string) error {
	const op slotfare.Op = "pricing.ValidateFareClasses"
	if len(classes) == 0 {
		return slotfare.Errorf(op, "fare_classes", "at least one fare class is needed")
	}
	if len(periodNames) == 0 {
		return slotfare.Errorf(op, "rate_periods", "the resource has no rate periods to price fare classes in")
	}
	periods := make(map[string]bool, len(periodNames))
	for _, p := range periodNames {
		periods[p] = true
	}
	sortedPeriods := append([]string(nil), periodNames...)
	sort.Strings(sortedPeriods)

	names := make(map[string]int, len(classes))
	ranks := make(map[int]int, len(classes))
	for i, c := range classes {
		at := func(field string) string { return fmt.Sprintf("[%d].%s", i, field) }
		if err := checkPricingName(c.Name); err != nil {
			return slotfare.Errorf(op, at("name"), "%v", err)
		}
		if j, dup := names[c.Name]; dup {
			return slotfare.Errorf(op, at("name"), "fare class %q is also [%d]", c.Name, j)
		}
		names[c.Name] = i
		if c.Rank < 1 || c.Rank > len(classes) {
			return slotfare.Errorf(op, at("rank"), "rank %d is outside 1..%d (1 is the highest class)", c.Rank, len(classes))
		}
		if j, dup := ranks[c.Rank]; dup {
			return slotfare.Errorf(op, at("rank"), "rank %d is also the rank of [%d]", c.Rank, j)
		}
		ranks[c.Rank] = i
		for _, p := range sortedPeriods {
			t, ok := c.Tau[p]
			if !ok {
				return slotfare.Errorf(op, at("tau."+p), "no tau for rate period %q", p)
			}
			if t.LessThan(decimal.NewFromInt(1)) {
				return slotfare.Errorf(op, at("tau."+p), "tau %s is below 1: a reservation may not cost less than the base cost (seed 004 Eq. 7.12)", t)
			}
		}
		extra := make([]string, 0)
		for p := range c.Tau {
			if !periods[p] {
				extra = append(extra, p)
			}
		}
		if len(extra) > 0 {
			sort.Strings(extra)
			return slotfare.Errorf(op, at("tau."+extra[0]), "there is no rate period %q (periods: %s)", extra[0], strings.Join(sortedPeriods, ", "))
		}
		if c.PenaltyRate.IsNegative() || c.PenaltyRate.GreaterThan(decimal.NewFromInt(1)) {
			return slotfare.Errorf(op, at("penalty_rate"), "penalty rate %s is outside [0, 1]", c.PenaltyRate)
		}
		if c.Cancellation != nil {
			if err := ValidateSchedule(op, at("cancellation"), c.Cancellation); err != nil {
				return err
			}
		}
		if !c.DeniedCostFactor.GreaterThan(decimal.NewFromInt(1)) {
			return slotfare.Errorf(op, at("denied_cost_factor"), "denied-cost factor %s must exceed 1 so that tau_ds > tau (seed 004 Sec. 7.6.3)", c.DeniedCostFactor)
		}
	}
	// Price differentiation: within each period, tau falls strictly with rank.
	byRank := make([]int, len(classes)+1)
	for rank, i := range ranks {
		byRank[rank] = i
	}
	for _, p := range sortedPeriods {
		for rank := 2; rank <= len(classes); rank++ {
			hi, lo := classes[byRank[rank-1]], classes[byRank[rank]]
			if !lo.Tau[p].LessThan(hi.Tau[p]) {
				return slotfare.Errorf(op, fmt.Sprintf("[%d].tau.%s", byRank[rank], p),
					"tau %s of rank %d must be below tau %s of rank %d (%q): higher classes pay more (seed 004 Sec. 7.2.2)",
					lo.Tau[p], rank, hi.Tau[p], rank-1, hi.Name)
			}
		}
	}
	return nil
}

// checkPricingName accepts the names of fare classes and rate periods: 1 to
// 64 ASCII letters, digits, '_' or '-', so that they read well in JSON paths
// ("[0].tau.off_peak") and URLs.
func checkPricingName(s string) error {
	if s == "" {
		return fmt.Errorf("name is empty")
	}
	if len(s) > 64 {
		return fmt.Errorf("name %q is longer than 64 characters", s)
	}
	for _, r := range s {
		ok := r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return fmt.Errorf("name %q may only hold letters, digits, '_' and '-'", s)
		}
	}
	return nil
}
