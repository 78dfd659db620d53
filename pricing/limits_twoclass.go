package pricing

import (
	"math"

	"gonum.org/v1/gonum/mathext"

	"slotfare"
)

// Littlewood is Littlewood's two-class rule with normal demand: the units
// to protect for the high class are y with P(D_high > y) = low/high, that is
// y = mu + sigma * z(1 - low/high) (seed 004, Sec. 7.4.2, whose Alg. 10 is
// the same rule walked in whole units). A negative y means protect nothing
// and is returned as 0. The result is unrounded.
func Littlewood(high, low ClassDemand) (float64, error) {
	if err := checkClasses("pricing.Littlewood", []ClassDemand{high, low}); err != nil {
		return 0, err
	}
	return littlewood(high, low.Fare), nil
}

// littlewood is y = max(0, mu + sigma * Phi^-1(1 - lowFare/high.Fare)) for
// lowFare < high.Fare.
func littlewood(high ClassDemand, lowFare float64) float64 {
	y := high.Mean
	if high.SD > 0 {
		y += high.SD * mathext.NormalQuantile(1-lowFare/high.Fare)
	}
	return math.Max(0, y)
}

// DemandCDF is a class's demand distribution for Alg. 10: the probability
// that the demand is at most x units. It must be a CDF: non-decreasing, in
// [0, 1].
type DemandCDF func(x int) float64

// BookingLimit is seed 004's Alg. 10 (Sec. 7.4.2): the booking limit b_l of
// the lower of two classes on capacity C, the largest b such that every
// step from 0 to b raises the expected revenue,
//
//	E[IR(b)] = (1 - F_l(b-1)) * (p_l - (1 - F_h(C - b)) * p_h) > 0.
//
// high is F_h; low is F_l and may be nil, read as F_l = 0 (the lower class
// always wants more, which is how Alg. 11 calls it: BookingLimit(C, p_h,
// p_l, F_h)). The high class's protection level is C - b_l.
//
// Both factors of E[IR(b)] only fall as b grows, so the walk of Alg. 10 (b =
// 1, 2, ... until E[IR] <= 0) ends at the same b as a bisection, which is
// what runs here: O(log C) evaluations of F instead of O(C).
func BookingLimit(capacity int, highFare, lowFare float64, high, low DemandCDF) (int, error) {
	const op slotfare.Op = "pricing.BookingLimit"
	switch {
	case capacity <= 0:
		return 0, slotfare.Errorf(op, "capacity", "must be positive, got %d", capacity)
	case !finite(highFare) || highFare <= 0:
		return 0, slotfare.Errorf(op, "high_fare", "must be positive, got %v", highFare)
	case !finite(lowFare) || lowFare <= 0 || lowFare >= highFare:
		return 0, slotfare.Errorf(op, "low_fare", "must be positive and below the high fare %v, got %v", highFare, lowFare)
	case high == nil:
		return 0, slotfare.Errorf(op, "high", "the high class's demand distribution is needed")
	}
	var bad error
	checked := func(f DemandCDF, field string) DemandCDF {
		if f == nil {
			return nil
		}
		return func(x int) float64 {
			p := f(x)
			if math.IsNaN(p) || p < 0 || p > 1 {
				if bad == nil {
					bad = slotfare.Errorf(op, field, "F(%d) = %v is not a probability", x, p)
				}
				return 0
			}
			return p
		}
	}
	b := bookingLimit(capacity, highFare, lowFare, checked(high, "high"), checked(low, "low"))
	if bad != nil {
		return 0, bad
	}
	return b, nil
}

// bookingLimit is Alg. 10 on checked inputs, by bisection over b in [0, C]
// for the last b up to which E[IR] stays positive (b = 0 always qualifies).
func bookingLimit(capacity int, highFare, lowFare float64, high, low DemandCDF) int {
	lo, hi := 0, capacity+1
	for hi-lo > 1 {
		b := lo + (hi-lo)/2
		fl := 0.0
		if low != nil {
			fl = low(b - 1)
		}
		if (1-fl)*(lowFare-(1-high(capacity-b))*highFare) > 0 {
			lo = b
		} else {
			hi = b
		}
	}
	return lo
}
