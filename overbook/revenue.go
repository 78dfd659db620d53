package overbook

import (
	"math"

	"github.com/shopspring/decimal"

	"slotfare"
)

// ENRPlaces is the number of decimal places ExpectedNetRevenue keeps. The
// value is an expectation built on float64 probabilities (good to about
// 1e-12 relative), not an amount to post; four places are finer than any
// currency's unit and still well inside that accuracy.
const ENRPlaces = 4

// ExpectedNetRevenue is the expected revenue of selling limit bookings at
// price p less the expected compensation of the denied ones (seed 004,
// Sec. 7.5.4, Eq. 7.9, with the (k - C) factor of the errata):
//
//	ENR = p * ob * q - cost_ds * E[(B(ob) - C)^+].
//
// p * ob * q is exact in decimal; the expected denied count is a float64
// converted at its shortest decimal; the result is rounded half-even to
// ENRPlaces. Any limit >= 0 may be evaluated, not only a policy's.
func ExpectedNetRevenue(limit, capacity int, showRate float64, price, deniedCost decimal.Decimal) (decimal.Decimal, error) {
	const op slotfare.Op = "overbook.ExpectedNetRevenue"
	if err := checkLimit(op, limit, capacity, showRate); err != nil {
		return decimal.Decimal{}, err
	}
	if err := checkMoney(op, price, deniedCost); err != nil {
		return decimal.Decimal{}, err
	}
	q := decimal.NewFromFloat(showRate)
	shows := price.Mul(decimal.NewFromInt(int64(limit))).Mul(q)
	denied := deniedCost.Mul(decimal.NewFromFloat(expectedDenied(limit, capacity, showRate)))
	return shows.Sub(denied).RoundBank(ENRPlaces), nil
}

// ServiceLevelOf is s(limit) of Eq. 7.5/7.8 (seed 004, Sec. 7.5.3): the
// expected number of denied shows over the expected number of shows when
// limit bookings were sold for capacity nodes.
func ServiceLevelOf(limit, capacity int, showRate float64) (float64, error) {
	if err := checkLimit("overbook.ServiceLevelOf", limit, capacity, showRate); err != nil {
		return 0, err
	}
	return serviceLevel(limit, capacity, showRate), nil
}

// ExpectedDenied is E[(B(limit) - C)^+]: how many bookings are expected to
// show beyond the capacity (seed 004, Eq. 7.5 numerator). The booking
// service can compare it with the denials it actually made.
func ExpectedDenied(limit, capacity int, showRate float64) (float64, error) {
	if err := checkLimit("overbook.ExpectedDenied", limit, capacity, showRate); err != nil {
		return 0, err
	}
	return expectedDenied(limit, capacity, showRate), nil
}

func checkLimit(op slotfare.Op, limit, capacity int, q float64) error {
	if err := checkCommon(op, capacity, q); err != nil {
		return err
	}
	if limit < 0 || limit > MaxLimit {
		return slotfare.Errorf(op, "limit", "must be in [0, %d], got %d", MaxLimit, limit)
	}
	return nil
}

// WeightedPrice is the price the risk policy uses when several fare classes
// share the capacity: the classes' prices weighted by their mean demands,
// sum(mu_i p_i) / sum(mu_i) (seed 004, Sec. 7.5.2, Eq. 7.4; the equation as
// printed omits the division by the total mean demand, without which it is
// not a price). Classes with no expected demand weigh nothing; at least one
// mean must be positive.
func WeightedPrice(prices []decimal.Decimal, means []float64) (decimal.Decimal, error) {
	const op slotfare.Op = "overbook.WeightedPrice"
	if len(prices) == 0 {
		return decimal.Decimal{}, slotfare.Errorf(op, "prices", "at least one class is needed")
	}
	if len(means) != len(prices) {
		return decimal.Decimal{}, slotfare.Errorf(op, "means",
			"has %d values for %d prices", len(means), len(prices))
	}
	var sum, total decimal.Decimal
	for i, p := range prices {
		m := means[i]
		if !p.IsPositive() {
			return decimal.Decimal{}, slotfare.Errorf(op, "prices", "price %d must be positive, got %s", i+1, p)
		}
		if math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
			return decimal.Decimal{}, slotfare.Errorf(op, "means", "mean %d must be finite and >= 0, got %v", i+1, m)
		}
		w := decimal.NewFromFloat(m)
		sum = sum.Add(w.Mul(p))
		total = total.Add(w)
	}
	if !total.IsPositive() {
		return decimal.Decimal{}, slotfare.Errorf(op, "means", "at least one mean must be positive")
	}
	return sum.Div(total), nil
}
