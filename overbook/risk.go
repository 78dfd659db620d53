package overbook

import (
	"math"

	"github.com/shopspring/decimal"

	"slotfare"
)

// RiskLimit is the risk-based policy: starting from the capacity, accept one
// more booking while the expected revenue change of Eq. 7.3,
//
//	(1 - A(ob)) * (p - cost_ds * P(B(ob+1) > C)),
//
// is positive, and return the first ob where it is not (seed 004,
// Sec. 7.5.2, Alg. 12). demand is A; nil means A = 0, which reproduces
// Table 7.4. The denied cost must exceed the price (cost_ds > p, as the
// section assumes), otherwise selling more would never stop paying.
//
// Both factors only shrink as ob grows (A is a CDF, and more bookings make
// more than C shows likelier), so the change stays positive up to some ob
// and not after; the search gallops and bisects to that same ob instead of
// stepping one booking at a time. The limit is capped at LimitCeiling(C):
// with cost_ds barely above p the walk would go on until nearly every extra
// booking is denied.
func RiskLimit(capacity int, showRate float64, price, deniedCost decimal.Decimal, demand DemandCDF) (int, error) {
	const op slotfare.Op = "overbook.RiskLimit"
	if err := checkCommon(op, capacity, showRate); err != nil {
		return 0, err
	}
	if err := checkMoney(op, price, deniedCost); err != nil {
		return 0, err
	}
	if !deniedCost.GreaterThan(price) {
		return 0, slotfare.Errorf(op, "denied_cost",
			"must exceed the price %s for the risk policy, got %s", price, deniedCost)
	}
	// p - cost_ds * P has the sign of 1 - (cost_ds / p) * P: the ratio is
	// taken in decimal, so prices of any magnitude neither overflow nor
	// vanish as float64.
	ratio := deniedCost.Div(price).InexactFloat64()
	gains := func(ob int) (bool, error) {
		a := 0.0
		if demand != nil {
			a = demand(ob)
			if math.IsNaN(a) || a < 0 || a > 1 {
				return false, slotfare.Errorf(op, "demand", "A(%d) = %v is not a probability", ob, a)
			}
		}
		return (1-a)*(1-ratio*showsAbove(ob+1, capacity, showRate)) > 0, nil
	}
	ceiling := LimitCeiling(capacity)
	ob, err := firstFailing(capacity, ceiling, gains)
	if err != nil {
		return 0, err
	}
	return min(ob, ceiling), nil
}
