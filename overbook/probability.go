package overbook

import (
	"github.com/shopspring/decimal"

	"slotfare"
)

// ProbabilityLimit is the probability-based policy: sell floor(C / q), so
// that the expected number of shows is about the capacity (seed 004,
// Sec. 7.5.1, Eq. 7.1; floor as in Table 7.3, see seeds/README.md).
//
// The division is exact: q is taken as the shortest decimal that reads back
// as the same float64 (0.55 is 55/100), and C / q is an integer division of
// decimals, so floor(55 / 0.55) is 100, not the 99 of float64. The show
// rate must be in [MinShowRate, 1], so the limit is at most LimitCeiling(C).
func ProbabilityLimit(capacity int, showRate float64) (int, error) {
	const op slotfare.Op = "overbook.ProbabilityLimit"
	if err := checkCommon(op, capacity, showRate); err != nil {
		return 0, err
	}
	q := decimal.NewFromFloat(showRate)
	quo, _ := decimal.NewFromInt(int64(capacity)).QuoRem(q, 0)
	return int(quo.IntPart()), nil // q >= MinShowRate: never past LimitCeiling
}
