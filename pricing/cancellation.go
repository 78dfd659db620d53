package pricing

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

// CancellationStep is one step of a fare class's cancellation schedule: a
// cancellation made at least BeforeStartSeconds before the booking's start
// (and not as early as the step before) keeps PenaltyRate of what was
// billed. The thesis has a single alpha_p for every lead time (seed 004
// Sec. 7.6.2); a schedule lets the penalty grow as the start comes closer,
// as sites and cloud capacity blocks charge more for a late release.
type CancellationStep struct {
	BeforeStartSeconds int64           `json:"before_start_seconds"`
	PenaltyRate        decimal.Decimal `json:"penalty_rate"`
}

// Schedule is the class's cancellation schedule, earliest step first: its
// own, or else the thesis's one step, penalty_rate at any lead time.
func (c FareClass) Schedule() []CancellationStep {
	if len(c.Cancellation) > 0 {
		return c.Cancellation
	}
	return []CancellationStep{{BeforeStartSeconds: 0, PenaltyRate: c.PenaltyRate}}
}

// CancellationRate is the penalty rate a schedule keeps of a cancellation
// made lead before the start: the rate of the first step (earliest first)
// whose BeforeStartSeconds is at most lead; a schedule that does not reach
// the start (no step at 0) keeps the last step's rate closer in.
func CancellationRate(schedule []CancellationStep, lead time.Duration) decimal.Decimal {
	for _, st := range schedule {
		if lead >= time.Duration(st.BeforeStartSeconds)*time.Second {
			return st.PenaltyRate
		}
	}
	if len(schedule) == 0 {
		return decimal.Zero
	}
	return schedule[len(schedule)-1].PenaltyRate
}

// ValidateSchedule checks a cancellation schedule: at least one step; steps
// earliest first, BeforeStartSeconds strictly falling to exactly 0 (every
// cancellation up to the start has a rate); each rate in [0, 1]. The error
// is Invalid naming path's step and field ("cancellation[1].penalty_rate").
func ValidateSchedule(op slotfare.Op, path string, steps []CancellationStep) error {
	if len(steps) == 0 {
		return slotfare.Errorf(op, path, "a schedule has at least one step (leave cancellation out for penalty_rate at any lead time)")
	}
	for i, st := range steps {
		at := func(f string) string { return fmt.Sprintf("%s[%d].%s", path, i, f) }
		if st.BeforeStartSeconds < 0 || st.BeforeStartSeconds > maxLeadSeconds {
			return slotfare.Errorf(op, at("before_start_seconds"), "must be in 0..%d, got %d", maxLeadSeconds, st.BeforeStartSeconds)
		}
		if i > 0 && st.BeforeStartSeconds >= steps[i-1].BeforeStartSeconds {
			return slotfare.Errorf(op, at("before_start_seconds"),
				"steps run from the earliest to the start: %d must be below the step before (%d)", st.BeforeStartSeconds, steps[i-1].BeforeStartSeconds)
		}
		if st.PenaltyRate.IsNegative() || st.PenaltyRate.GreaterThan(decimal.NewFromInt(1)) {
			return slotfare.Errorf(op, at("penalty_rate"), "penalty rate %s is outside [0, 1]", st.PenaltyRate)
		}
	}
	if last := steps[len(steps)-1]; last.BeforeStartSeconds != 0 {
		return slotfare.Errorf(op, fmt.Sprintf("%s[%d].before_start_seconds", path, len(steps)-1),
			"the last step must be at 0 so that every cancellation up to the start has a rate, got %d", last.BeforeStartSeconds)
	}
	return nil
}

// maxLeadSeconds bounds a step's lead time (ten years): far beyond any
// book-ahead horizon, and safe from overflow as a Duration.
const maxLeadSeconds = 10 * 366 * 24 * 3600

// decodeSchedule reads a class's "cancellation" strictly: an array of
// {"before_start_seconds":int,"penalty_rate":"decimal"}.
func decodeSchedule(op slotfare.Op, path string, raw json.RawMessage) ([]CancellationStep, error) {
	elems, err := wireArray(op, path, raw)
	if err != nil {
		return nil, err
	}
	out := make([]CancellationStep, len(elems))
	for i, e := range elems {
		at := fmt.Sprintf("%s[%d]", path, i)
		f, err := wireObject(op, at, e, []string{"before_start_seconds", "penalty_rate"}, nil)
		if err != nil {
			return nil, err
		}
		n, err := wireInt(op, wirePath(at, "before_start_seconds"), f["before_start_seconds"])
		if err != nil {
			return nil, err
		}
		out[i].BeforeStartSeconds = int64(n)
		if out[i].PenaltyRate, err = wireDecimal(op, wirePath(at, "penalty_rate"), f["penalty_rate"]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
