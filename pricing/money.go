package pricing

import (
	"sort"

	"github.com/shopspring/decimal"
)

// MoneyPlaces is the default currency scale: amounts are shown and posted
// with two decimals unless the currency says otherwise.
const MoneyPlaces int32 = 2

// RoundMoney rounds an amount half-even (banker's rounding) to places
// decimals: the one rounding slotfare applies to money, used when a charge is
// posted and when an offer is shown, so the shown total is what is charged.
func RoundMoney(amount decimal.Decimal, places int32) decimal.Decimal {
	return amount.RoundBank(places)
}

// FormatMoney writes an amount rounded as RoundMoney does, with exactly
// places decimals ("12.30"), as JSON carries money.
func FormatMoney(amount decimal.Decimal, places int32) string {
	return RoundMoney(amount, places).StringFixed(places)
}

// AllocateRounded rounds each of parts to places decimals so that the
// rounded parts sum exactly to RoundMoney(sum of parts): every part is first
// rounded down, then the units still missing go one each to the parts that
// lost the most, earlier parts first on ties (the largest-remainder method).
// Invoice lines built this way add up to the invoice total.
func AllocateRounded(parts []decimal.Decimal, places int32) []decimal.Decimal {
	out := make([]decimal.Decimal, len(parts))
	if len(parts) == 0 {
		return out
	}
	sum := decimal.Sum(decimal.Zero, parts...)
	target := RoundMoney(sum, places)
	unit := decimal.New(1, -places)
	floored := decimal.Zero
	order := make([]int, len(parts))
	lost := make([]decimal.Decimal, len(parts))
	for i, p := range parts {
		out[i] = p.RoundFloor(places)
		lost[i] = p.Sub(out[i])
		floored = floored.Add(out[i])
		order[i] = i
	}
	missing := target.Sub(floored).Div(unit).IntPart()
	sort.SliceStable(order, func(a, b int) bool { return lost[order[a]].GreaterThan(lost[order[b]]) })
	for k := 0; k < int(missing) && k < len(order); k++ {
		out[order[k]] = out[order[k]].Add(unit)
	}
	return out
}
