package ledger

import (
	"math/big"
	"sort"
	"strconv"

	"github.com/shopspring/decimal"

	"slotfare"
)

// Currency is a three-letter upper-case currency code: an ISO 4217 code or
// a private one such as "GRD", the demo's Grid dollar (the thesis's G$).
type Currency string

// Valid reports whether c has the form of a currency code.
func (c Currency) Valid() bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}

func checkCurrency(op slotfare.Op, field string, c Currency) error {
	if !c.Valid() {
		return slotfare.Errorf(op, field, "%q is not a currency code: want three upper-case letters such as EUR or GRD", string(c))
	}
	return nil
}

// Rounding is how an amount is brought to its currency's scale.
type Rounding uint8

const (
	// HalfEven rounds to the nearest unit, ties to the even unit (banker's
	// rounding): the default, because it does not drift up over many
	// postings.
	HalfEven Rounding = iota
	// HalfUp rounds to the nearest unit, ties away from zero.
	HalfUp
	// Down rounds toward zero (truncates).
	Down
	// Up rounds away from zero.
	Up
)

var roundingNames = [...]string{HalfEven: "half-even", HalfUp: "half-up", Down: "down", Up: "up"}

func (r Rounding) String() string {
	if int(r) < len(roundingNames) {
		return roundingNames[r]
	}
	return "rounding(" + strconv.Itoa(int(r)) + ")"
}

// ParseRounding reads a rounding name as configuration files spell it:
// half-even, half-up, down or up.
func ParseRounding(s, field string) (Rounding, error) {
	for i, n := range roundingNames {
		if s == n {
			return Rounding(i), nil
		}
	}
	return 0, slotfare.Errorf("ledger.ParseRounding", field, "%q is not a rounding: want half-even, half-up, down or up", s)
}

// MaxScale bounds a currency's scale (digits after the decimal point).
const MaxScale = 12

// CurrencyRule is how amounts in one currency are kept: Scale digits after
// the decimal point, reached by Rounding.
type CurrencyRule struct {
	Scale    int32
	Rounding Rounding
}

// DefaultRule applies to every currency that is neither configured nor one
// of the ISO 4217 currencies with a scale other than 2: scale 2, half-even.
// The demo's GRD gets it, as the thesis quotes G$ to the hundredth (Table
// 7.6, base cost 0.49).
func DefaultRule() CurrencyRule { return CurrencyRule{Scale: 2, Rounding: HalfEven} }

// isoRule is the ISO 4217 minor-unit exception for c, if it has one.
func isoRule(c Currency) (CurrencyRule, bool) {
	switch c {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG",
		"RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF":
		return CurrencyRule{Scale: 0, Rounding: HalfEven}, true
	case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
		return CurrencyRule{Scale: 3, Rounding: HalfEven}, true
	}
	return CurrencyRule{}, false
}

func (r CurrencyRule) check(op slotfare.Op, field string) error {
	if r.Scale < 0 || r.Scale > MaxScale {
		return slotfare.Errorf(op, field+".scale", "must be between 0 and %d, got %d", MaxScale, r.Scale)
	}
	if int(r.Rounding) >= len(roundingNames) {
		return slotfare.Errorf(op, field+".rounding", "unknown rounding %d", r.Rounding)
	}
	return nil
}

// Round brings d to the rule's scale. It is the one place amounts are
// rounded; an amount already at the scale comes back unchanged.
func (r CurrencyRule) Round(d decimal.Decimal) decimal.Decimal {
	switch r.Rounding {
	case HalfUp:
		return d.Round(r.Scale)
	case Down:
		return d.RoundDown(r.Scale)
	case Up:
		return d.RoundUp(r.Scale)
	default:
		return d.RoundBank(r.Scale)
	}
}

// AtScale reports whether d needs no rounding under r.
func (r CurrencyRule) AtScale(d decimal.Decimal) bool { return d.RoundDown(r.Scale).Equal(d) }

// unit is the smallest amount of the currency: 10^-Scale.
func (r CurrencyRule) unit() decimal.Decimal { return decimal.New(1, -r.Scale) }

// Format writes d with exactly the rule's scale of digits ("12.30"), for
// amounts already rounded; an amount with more digits keeps them all, so
// formatting never loses money.
func (r CurrencyRule) Format(d decimal.Decimal) string { return formatAmount(d, r.Scale) }

func formatAmount(d decimal.Decimal, scale int32) string {
	if s, ok := formatSmallAmount(d, scale); ok {
		return s
	}
	return formatBigAmount(d, scale)
}

// formatBigAmount is formatAmount on big.Int: right for every amount.
func formatBigAmount(d decimal.Decimal, scale int32) string {
	if e := -d.Exponent(); e > scale && !d.RoundDown(scale).Equal(d) {
		return d.StringFixed(e)
	}
	return d.StringFixed(scale)
}

// Split divides total into parts proportional to weights, each at the
// rule's scale, that sum exactly to total rounded once. Every part is
// within one unit of its exact share: the parts are first taken by
// truncation and the units left over go, one each, to the parts with the
// largest truncated remainders (earlier parts first on ties) — so 100.00
// in three equal weights is 33.34, 33.33, 33.33. Weights must be
// non-negative with a positive sum. The arithmetic is on integers, so no
// division is ever truncated.
func (r CurrencyRule) Split(total decimal.Decimal, weights []decimal.Decimal) ([]decimal.Decimal, error) {
	const op slotfare.Op = "ledger.Split"
	if len(weights) == 0 {
		return nil, slotfare.Errorf(op, "weights", "need at least one weight")
	}
	exp := int32(0)
	for i, w := range weights {
		if w.Sign() < 0 {
			return nil, slotfare.Errorf(op, "weights", "weight %d is negative: %s", i, w)
		}
		exp = min(exp, w.Exponent())
	}
	t := r.Round(total)
	neg := t.Sign() < 0
	units := t.Abs().Shift(r.Scale).BigInt() // exact: t is at scale
	ws := make([]*big.Int, len(weights))
	sum := new(big.Int)
	for i, w := range weights {
		ws[i] = w.Shift(-exp).BigInt() // exact integers sharing one exponent
		sum.Add(sum, ws[i])
	}
	if sum.Sign() == 0 {
		return nil, slotfare.Errorf(op, "weights", "weights sum to zero")
	}
	shares := make([]*big.Int, len(ws))
	rems := make([]*big.Int, len(ws))
	left := new(big.Int).Set(units)
	for i, w := range ws {
		shares[i], rems[i] = new(big.Int).QuoRem(new(big.Int).Mul(units, w), sum, new(big.Int))
		left.Sub(left, shares[i])
	}
	order := make([]int, len(ws))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rems[order[a]].Cmp(rems[order[b]]) > 0 })
	for k := 0; left.Sign() > 0; k++ { // left < len(ws): each truncation lost less than one unit
		shares[order[k]].Add(shares[order[k]], big.NewInt(1))
		left.Sub(left, big.NewInt(1))
	}
	parts := make([]decimal.Decimal, len(ws))
	for i, s := range shares {
		if neg {
			s.Neg(s)
		}
		parts[i] = decimal.NewFromBigInt(s, -r.Scale)
	}
	return parts, nil
}

// roundLines rounds amounts (all positive) to the rule's scale so that
// they sum to the rule's rounding of their exact sum. Each amount is
// rounded on its own first; if that leaves the sum k units off, the k
// amounts whose own rounding went furthest the other way move by one unit
// (earlier amounts first on ties). Each result stays within one unit of its
// exact value, and amounts already at the scale move only when no other can.
func (r CurrencyRule) roundLines(exact []decimal.Decimal) []decimal.Decimal {
	out := make([]decimal.Decimal, len(exact))
	sum, rsum := decimal.Zero, decimal.Zero
	for i, a := range exact {
		out[i] = r.Round(a)
		sum = sum.Add(a)
		rsum = rsum.Add(out[i])
	}
	k := r.Round(sum).Sub(rsum).Shift(r.Scale).IntPart() // whole units off
	if k == 0 {
		return out
	}
	step := r.unit()
	order := make([]int, len(exact))
	for i := range order {
		order[i] = i
	}
	// err > 0: rounded down. To add units, take the largest err first; to
	// remove units, the smallest (most rounded up) first.
	errOf := func(i int) decimal.Decimal { return exact[i].Sub(out[i]) }
	if k > 0 {
		sort.SliceStable(order, func(a, b int) bool { return errOf(order[a]).GreaterThan(errOf(order[b])) })
	} else {
		sort.SliceStable(order, func(a, b int) bool { return errOf(order[a]).LessThan(errOf(order[b])) })
		step = step.Neg()
		k = -k
	}
	for j := 0; j < int(k); j++ {
		i := order[j%len(order)]
		out[i] = out[i].Add(step)
	}
	return out
}

// Currencies maps currency codes to their rules; see Rule for the lookup.
type Currencies map[Currency]CurrencyRule

// Rule is the rule for c: the configured one, else the ISO 4217 scale for
// the currencies whose minor unit is not a hundredth (JPY 0, KWD 3, ...),
// else DefaultRule (scale 2, half-even).
func (cs Currencies) Rule(c Currency) CurrencyRule {
	if r, ok := cs[c]; ok {
		return r
	}
	if r, ok := isoRule(c); ok {
		return r
	}
	return DefaultRule()
}

// Check validates every configured rule, naming the bad one as
// "currencies.CODE.scale" or ".rounding".
func (cs Currencies) Check() error {
	codes := make([]string, 0, len(cs))
	for c := range cs {
		codes = append(codes, string(c))
	}
	sort.Strings(codes)
	for _, c := range codes {
		if err := checkCurrency("ledger.Currencies", "currencies", Currency(c)); err != nil {
			return err
		}
		if err := cs[Currency(c)].check("ledger.Currencies", "currencies."+c); err != nil {
			return err
		}
	}
	return nil
}
