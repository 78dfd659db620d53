package pricing

import (
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

// Displacement control (Talluri and van Ryzin, "The Theory and Practice of
// Revenue Management", Sec. 3.3.1): a request is worth taking when its fare
// covers the bid prices of the node-slots it takes. Bid prices here are per
// node-second of a rate period, in the same unit as a class's tau (a
// multiple of the base cost), so a request's displacement cost is priced as
// a reservation in a class whose taus are the bid prices: BidClass.

// MarginalClass is the index of the class whose fare is the bid price of a
// slot of the given capacity (SlotBidPrice): the first class, from the
// highest, whose demand does not fit in what the classes above it left; -1
// when every class fits (the bid price is 0). It depends on the demand
// alone, not the fares, so a period's weekday and weekend fares share it.
func MarginalClass(capacity float64, classes []ClassDemand) int {
	left := capacity
	for i, c := range classes {
		if c.Mean > left {
			return i
		}
		left -= c.Mean
	}
	return -1
}

// BidClass is the pseudo fare class whose taus are the bid prices, by rate
// period (weekday) and weekend, for Covers. A period it has no tau for has
// a bid price of 0.
func BidClass(tau, weekend map[string]decimal.Decimal) FareClass {
	return FareClass{Name: "bid price", Tau: tau, WeekendTau: weekend}
}

// Covers reports whether class's fares over [start, end) cover the bid
// prices of the same node-seconds: the sum over the interval's rate-period
// pieces of (tau - bid price) x seconds is not negative. Nodes and base
// cost multiply both sides alike and are left out. A long request may pay
// below the bid price in one period and above it in another: only the sum
// counts, which per-period closure of the classes cannot express.
func Covers(cal *RateCalendar, class, bid FareClass, start, end time.Time) (bool, error) {
	const op slotfare.Op = "pricing.Covers"
	if cal == nil {
		return false, slotfare.Errorf(op, "rate_periods", "the resource has no rate calendar")
	}
	pieces, err := cal.Split(start, end)
	if err != nil {
		return false, slotfare.E(op, err)
	}
	margin := decimal.Zero
	for _, piece := range pieces {
		tau, ok := class.tauOf(cal, piece)
		if !ok {
			return false, slotfare.Errorf(op, "fare_class", "fare class %q has no tau for rate period %q", class.Name, piece.Period)
		}
		pi, ok := bid.tauOf(cal, piece)
		if !ok {
			pi = decimal.Zero
		}
		margin = margin.Add(tau.Sub(pi).Mul(priceSeconds(piece.Duration())))
	}
	return !margin.IsNegative(), nil
}
