package pricing

import (
	"github.com/shopspring/decimal"

	"slotfare"
)

// SelectQuote picks one start from a quote list by the user's preference
// alpha in [0, 1], the rule of seed 001, Sec. 4: minimise
//
//	alpha x (f - fmin)/(fmax - fmin) + (1 - alpha) x (s - smin)/(smax - smin)
//
// over the quotes, f the premium and s the start. alpha = 0 takes the
// earliest start whatever it costs; alpha = 1 the cheapest, which is zero
// because a quote list always holds a free start. Ties go to the earliest
// start. A term whose range is empty (all premiums or all starts equal) is
// zero. The comparison is exact: both sides are multiplied by the two
// ranges instead of divided, in decimal arithmetic.
func SelectQuote(quotes []Quote, alpha decimal.Decimal) (Quote, error) {
	const op slotfare.Op = "pricing.select"
	if alpha.Sign() < 0 || alpha.GreaterThan(decimal.NewFromInt(1)) {
		return Quote{}, slotfare.Errorf(op, "alpha", "must be between 0 and 1, got %s", alpha)
	}
	if len(quotes) == 0 {
		return Quote{}, slotfare.E(op, slotfare.NoCapacity, slotfare.Field("quotes"), "no start time to choose from")
	}
	fmin, fmax := quotes[0].Premium, quotes[0].Premium
	smin, smax := quotes[0].Start, quotes[0].Start
	for _, q := range quotes[1:] {
		fmin, fmax = decimal.Min(fmin, q.Premium), decimal.Max(fmax, q.Premium)
		smin, smax = min(smin, q.Start), max(smax, q.Start)
	}
	fspan, sspan := fmax.Sub(fmin), decimal.NewFromInt(smax-smin)
	if fspan.IsZero() {
		fspan = decimal.NewFromInt(1) // every (f - fmin) is zero anyway
	}
	if sspan.IsZero() {
		sspan = decimal.NewFromInt(1)
	}
	rest := decimal.NewFromInt(1).Sub(alpha)
	best, bestScore := -1, decimal.Zero
	for i, q := range quotes {
		score := alpha.Mul(q.Premium.Sub(fmin)).Mul(sspan).
			Add(rest.Mul(decimal.NewFromInt(q.Start - smin)).Mul(fspan))
		if best < 0 || score.LessThan(bestScore) || (score.Equal(bestScore) && q.Start < quotes[best].Start) {
			best, bestScore = i, score
		}
	}
	return quotes[best], nil
}
