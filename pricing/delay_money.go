package pricing

import (
	"math/big"

	"github.com/shopspring/decimal"

	"slotfare"
)

// DelayPremiumAmount turns a delay premium into money for an offer's
// price.delay_premium: premium node-seconds x base cost x the fare class's
// tau, with the base cost quoted per node-hour (seed 001, Sec. 4 prices in
// service units of one processor-hour; the thesis's bcost of seed 004,
// Eq. 7.10-7.12, is a cost per node per time unit, and slotfare's unit is
// the hour). So amount = premium x baseCostPerNodeHour x tau / 3600, rounded
// once, half to even, to places decimal places. The division is done on
// exact integers, so the result is the correctly rounded exact amount (no
// 16-digit truncation on the way).
func DelayPremiumAmount(premium, baseCostPerNodeHour, tau decimal.Decimal, places int32) (decimal.Decimal, error) {
	const op = "pricing.delay_premium"
	switch {
	case premium.Sign() < 0:
		return decimal.Decimal{}, slotfare.Errorf(op, "premium", "must not be negative, got %s", premium)
	case baseCostPerNodeHour.Sign() < 0:
		return decimal.Decimal{}, slotfare.Errorf(op, "base_cost", "must not be negative, got %s", baseCostPerNodeHour)
	case tau.Sign() < 0:
		return decimal.Decimal{}, slotfare.Errorf(op, "tau", "must not be negative, got %s", tau)
	case places < 0 || places > 18:
		return decimal.Decimal{}, slotfare.Errorf(op, "places", "must be in 0..18, got %d", places)
	}
	x := premium.Mul(baseCostPerNodeHour).Mul(tau) // exact
	// x = coef x 10^exp; want round(coef x 10^(exp+places) / 3600) x 10^-places.
	num := new(big.Int).Set(x.Coefficient())
	den := big.NewInt(3600)
	if e := int64(x.Exponent()) + int64(places); e >= 0 {
		num.Mul(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(e), nil))
	} else {
		den.Mul(den, new(big.Int).Exp(big.NewInt(10), big.NewInt(-e), nil))
	}
	q, r := new(big.Int).QuoRem(num, den, new(big.Int)) // num >= 0
	switch r.Lsh(r, 1).Cmp(den) {
	case 1:
		q.Add(q, big.NewInt(1))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	return decimal.NewFromBigInt(q, -places), nil
}
