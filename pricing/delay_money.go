package pricing

import (
	"github.com/shopspring/decimal"

	"slotfare"
)

// DelayPremiumAmount turns a delay premium into money for an offer's
// price.delay_premium: premium node-seconds x base cost x the fare class's
// tau, with the base cost in slotfare's one unit, money per node-second (see
// price.go; seed 004 Eq. 7.10-7.12), so that a node-second of delay caused to
// the best-effort queue costs what a node-second of reservation costs in that
// class. The product is exact; it is rounded once, half to even, to places.
func DelayPremiumAmount(premium, baseCostPerNodeSecond, tau decimal.Decimal, places int32) (decimal.Decimal, error) {
	const op slotfare.Op = "pricing.delay_premium"
	switch {
	case premium.Sign() < 0:
		return decimal.Decimal{}, slotfare.Errorf(op, "premium", "must not be negative, got %s", premium)
	case baseCostPerNodeSecond.Sign() < 0:
		return decimal.Decimal{}, slotfare.Errorf(op, "base_cost", "must not be negative, got %s", baseCostPerNodeSecond)
	case tau.Sign() < 0:
		return decimal.Decimal{}, slotfare.Errorf(op, "tau", "must not be negative, got %s", tau)
	case places < 0 || places > 18:
		return decimal.Decimal{}, slotfare.Errorf(op, "places", "must be in 0..18, got %d", places)
	}
	return RoundMoney(premium.Mul(baseCostPerNodeSecond).Mul(tau), places), nil
}
