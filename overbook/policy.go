package overbook

import (
	"math"

	"github.com/shopspring/decimal"

	"slotfare"
)

// Policy names how the overbooking limit is chosen (seed 004, Sec. 7.5).
type Policy string

const (
	// None sells exactly the capacity: the limit is C.
	None Policy = "none"
	// Probability sells C / q, so that the expected shows fill the
	// capacity (Sec. 7.5.1, Eq. 7.1).
	Probability Policy = "probability"
	// Risk sells one more booking while it still adds expected revenue after
	// the expected compensation (Sec. 7.5.2, Alg. 12, Eq. 7.3).
	Risk Policy = "risk"
	// ServiceLevel sells as many as keep the expected share of denied shows
	// within a threshold (Sec. 7.5.3, Alg. 13, Eq. 7.5-7.8).
	ServiceLevel Policy = "service-level"
)

// ParsePolicy reads a policy by its name: "none", "probability", "risk" or
// "service-level".
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case None, Probability, Risk, ServiceLevel:
		return p, nil
	}
	return "", slotfare.Errorf("overbook.ParsePolicy", "policy",
		"unknown policy %q (want none, probability, risk or service-level)", s)
}

// MinShowRate is the lowest show rate a policy plans with: the lowest
// plausible share of bookings that show up at the start. Seed 004 reports
// none lower: its tables go down to q = 0.60 (Sec. 7.5.4, Tables 7.3-7.5),
// its evaluation uses 0.85-0.95 (Sec. 7.7.1), and the worst case it cites
// is American Airlines' 50% of bookings cancelled or no-show (Sec. 7.8,
// Smith et al.). A show rate below it is refused as input: it is no
// forecast any policy could sell on, and every limit would grow as 1/q.
const MinShowRate = 0.5

// MaxServiceLevel is the largest ds_threshold the service-level policy
// accepts. s(x) of Eq. 7.5 is the expected share of the shows that are
// denied (Sec. 7.5.3); above one half the policy would plan to turn away
// more of the users who come than it serves, which is no service level at
// all. The thesis's own thresholds are 1% to 0.01% (Table 7.5; 1% in its
// evaluation, Sec. 7.7.1). As the threshold nears 1 the limit has no bound
// (s(x) tends to 1 - C/(xq)): 0.999999 asked for a million times the nodes.
const MaxServiceLevel = 0.5

// MaxCapacity bounds the capacity C a policy is asked about, and MaxLimit
// every limit: the ceiling (LimitCeiling) of the largest capacity.
const (
	MaxCapacity = 5_000_000
	MaxLimit    = 10_000_000
)

// LimitCeiling is the most any policy sells on capacity nodes:
// floor(C / MinShowRate), what the probability policy (Eq. 7.1) would sell
// at the lowest plausible show rate. Beyond it more bookings are expected to
// show than there are nodes at every plausible show rate, so no policy can
// justify them: the risk policy with a denied cost barely above the price,
// or the service-level policy at its loosest, would otherwise sell up to
// about four times the nodes. Every policy's limit is capped here.
func LimitCeiling(capacity int) int {
	quo, _ := decimal.NewFromInt(int64(capacity)).QuoRem(decimal.NewFromFloat(MinShowRate), 0)
	return int(quo.IntPart())
}

// DemandCDF is A(x) of Sec. 7.5.2: the probability that the demand for
// bookings is at most x. A nil DemandCDF means A(x) = 0 for every x (demand
// always exceeds the limit), which is how Table 7.4 is computed.
type DemandCDF func(x int) float64

// Params are the inputs of an overbooking decision for one resource and one
// service time. Price and DeniedCost are per booked unit (a node for the
// slot); with several fare classes, Price is the demand-weighted average
// that WeightedPrice gives (Eq. 7.4), and DeniedCost is weighted the same way.
type Params struct {
	Capacity   int             // C, nodes
	ShowRate   float64         // q in [MinShowRate, 1]: the chance that a booking shows
	Price      decimal.Decimal // p > 0
	DeniedCost decimal.Decimal // cost_ds >= 0; the risk policy needs cost_ds > p
	// ServiceLevel is ds_threshold in (0, MaxServiceLevel], the largest
	// expected share of denied shows the service-level policy accepts.
	// Other policies ignore it.
	ServiceLevel float64
	// Demand is A(x) for the risk policy; nil means A = 0.
	Demand DemandCDF
}

// Result is an overbooking decision with what it is expected to bring.
type Result struct {
	Policy Policy
	Limit  int // C <= ob <= LimitCeiling(C): how many bookings to accept
	// ExpectedNetRevenue is Eq. 7.9 (with the errata's (k - C) factor) at
	// Limit: revenue of the expected shows less the expected compensation.
	ExpectedNetRevenue decimal.Decimal
	// ServiceLevel is s(Limit), Eq. 7.8: expected denied over expected shows.
	ServiceLevel float64
}

// Limit applies a policy and evaluates the limit it picks. This is what the
// booking service calls per resource and rate period, with the show rate and
// price from forecast and pricing.
func Limit(policy Policy, p Params) (Result, error) {
	const op slotfare.Op = "overbook.Limit"
	var (
		ob  int
		err error
	)
	switch policy {
	case None:
		if err = checkCommon(op, p.Capacity, p.ShowRate); err == nil {
			ob = p.Capacity
		}
	case Probability:
		ob, err = ProbabilityLimit(p.Capacity, p.ShowRate)
	case Risk:
		ob, err = RiskLimit(p.Capacity, p.ShowRate, p.Price, p.DeniedCost, p.Demand)
	case ServiceLevel:
		ob, err = ServiceLevelLimit(p.Capacity, p.ShowRate, p.ServiceLevel)
	default:
		_, err = ParsePolicy(string(policy))
	}
	if err != nil {
		return Result{}, err
	}
	enr, err := ExpectedNetRevenue(ob, p.Capacity, p.ShowRate, p.Price, p.DeniedCost)
	if err != nil {
		return Result{}, err
	}
	return Result{
		Policy:             policy,
		Limit:              ob,
		ExpectedNetRevenue: enr,
		ServiceLevel:       serviceLevel(ob, p.Capacity, p.ShowRate),
	}, nil
}

func checkCommon(op slotfare.Op, capacity int, q float64) error {
	if capacity <= 0 {
		return slotfare.Errorf(op, "capacity", "must be positive, got %d", capacity)
	}
	if capacity > MaxCapacity {
		return slotfare.Errorf(op, "capacity", "must be at most %d, got %d", MaxCapacity, capacity)
	}
	if math.IsNaN(q) || q < MinShowRate || q > 1 {
		return slotfare.Errorf(op, "show_rate",
			"must be in [%v, 1], got %v: below %v no policy can plan on it (the lowest show rate seed 004 reports, Sec. 7.8)",
			MinShowRate, q, MinShowRate)
	}
	return nil
}

func checkMoney(op slotfare.Op, price, deniedCost decimal.Decimal) error {
	if !price.IsPositive() {
		return slotfare.Errorf(op, "price", "must be positive, got %s", price)
	}
	if deniedCost.IsNegative() {
		return slotfare.Errorf(op, "denied_cost", "must not be negative, got %s", deniedCost)
	}
	return nil
}

// firstFailing returns the smallest n in [from, last] with ok(n) false, or
// last+1 when ok holds all the way, for an ok that holds up to some point
// and fails from there on. It gallops upward from `from` and then bisects,
// so it asks ok O(log(answer - from)) times and returns exactly what a
// step-by-step walk from `from` would.
func firstFailing(from, last int, ok func(n int) (bool, error)) (int, error) {
	good, err := ok(from)
	if err != nil || !good {
		return from, err
	}
	lo, step := from, 1
	hi := from + step
	for {
		if hi > last {
			hi = last + 1 // ok(last+1) is taken as false: the walk stops there
			break
		}
		good, err := ok(hi)
		if err != nil {
			return 0, err
		}
		if !good {
			break
		}
		lo, step = hi, step*2
		hi = from + step
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		good, err := ok(mid)
		if err != nil {
			return 0, err
		}
		if good {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}
