package pricing

import (
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

// Base cost unit. Throughout slotfare a resource's base cost (bcost of seed 004
// Eq. 7.10, API.md's "base_cost") is money per node-second. The thesis's
// simulator charges per PE-second, and only that unit is consistent with its
// results: RAL (41 nodes, bcost 0.49) earns G$ 31.5 million in 14 days
// (Table 7.11), while 41 nodes x 1,209,600 s x 0.49 x tau 2.5 is G$ 61
// million at full load; per node-hour the ceiling would be G$ 17 thousand.

// ReservationPrice is what a reservation of Nodes nodes over [Start, End)
// costs in one fare class: seed 004 Eq. 7.11-7.12, cost_AR = numSlot x numCN
// x tau x bcost x delta, summed over the interval's rate-period pieces, each
// with its own tau. numSlot x delta is the reserved time, which is priced
// exactly to the nanosecond (a slot-aligned reservation gives the thesis's
// figure). Amounts keep full precision; round once, when the charge is
// posted (RoundMoney, the same rounding the ledger applies).
type ReservationPrice struct {
	FareClass string          `json:"fare_class"`
	Nodes     int             `json:"nodes"`
	BaseCost  decimal.Decimal `json:"base_cost"` // per node-second
	Start     time.Time       `json:"start"`
	End       time.Time       `json:"end"`
	Pieces    []PricePiece    `json:"pieces"`
	Total     decimal.Decimal `json:"total"`
}

// PricePiece is one rate-period piece of a reservation with its price:
// Amount = Tau x base cost x nodes x Seconds (seed 004 Eq. 7.11-7.12). Invoices
// and offers show these lines.
type PricePiece struct {
	Period  string          `json:"period"`
	Start   time.Time       `json:"start"`
	End     time.Time       `json:"end"`
	Seconds decimal.Decimal `json:"seconds"`
	Tau     decimal.Decimal `json:"tau"`
	Amount  decimal.Decimal `json:"amount"`
}

// Rounded is the total rounded half-even to places decimals: the amount an
// offer shows and the ledger charges.
func (p ReservationPrice) Rounded(places int32) decimal.Decimal { return RoundMoney(p.Total, places) }

// RoundedPieces rounds the pieces' amounts to places decimals so that they
// sum exactly to Rounded(places) (see AllocateRounded).
func (p ReservationPrice) RoundedPieces(places int32) []decimal.Decimal {
	amounts := make([]decimal.Decimal, len(p.Pieces))
	for i, piece := range p.Pieces {
		amounts[i] = piece.Amount
	}
	return AllocateRounded(amounts, places)
}

// PriceReservation prices a reservation of nodes nodes over [start, end) in
// fare class class on a resource with base cost baseCost (money per
// node-second) and rate calendar cal: seed 004 Eq. 7.11-7.12 per rate-period
// piece. The service calls it for every offer and again at commit; the
// rounded total (ReservationPrice.Rounded) is what is charged.
func PriceReservation(cal *RateCalendar, class FareClass, baseCost decimal.Decimal, nodes int, start, end time.Time) (ReservationPrice, error) {
	const op slotfare.Op = "pricing.PriceReservation"
	if cal == nil {
		return ReservationPrice{}, slotfare.Errorf(op, "rate_periods", "the resource has no rate calendar")
	}
	if nodes <= 0 {
		return ReservationPrice{}, slotfare.Errorf(op, "nodes", "nodes must be positive, got %d", nodes)
	}
	if !baseCost.IsPositive() {
		return ReservationPrice{}, slotfare.Errorf(op, "base_cost", "base cost must be positive, got %s", baseCost)
	}
	pieces, err := cal.Split(start, end)
	if err != nil {
		return ReservationPrice{}, slotfare.E(op, err)
	}
	perSecond := baseCost.Mul(decimal.NewFromInt(int64(nodes)))
	p := ReservationPrice{
		FareClass: class.Name, Nodes: nodes, BaseCost: baseCost,
		Start: pieces[0].Start, End: pieces[len(pieces)-1].End,
		Pieces: make([]PricePiece, len(pieces)),
	}
	for i, piece := range pieces {
		tau, ok := class.tauOf(cal, piece)
		if !ok {
			return ReservationPrice{}, slotfare.Errorf(op, "fare_class", "fare class %q has no tau for rate period %q", class.Name, piece.Period)
		}
		secs := priceSeconds(piece.Duration())
		amount := tau.Mul(perSecond).Mul(secs)
		p.Pieces[i] = PricePiece{Period: piece.Period, Start: piece.Start, End: piece.End, Seconds: secs, Tau: tau, Amount: amount}
		p.Total = p.Total.Add(amount)
	}
	return p, nil
}

// tauOf is the class's tau for a rate-period piece (TauAt its start).
func (c FareClass) tauOf(cal *RateCalendar, piece PeriodPiece) (decimal.Decimal, bool) {
	return c.TauAt(cal, piece.Period, piece.Start)
}

// TauAt is the class's tau in period at t: its weekend tau on a Saturday
// or Sunday in cal's zone where it has one, else its tau.
func (c FareClass) TauAt(cal *RateCalendar, period string, t time.Time) (decimal.Decimal, bool) {
	if c.WeekendTau != nil {
		if d := t.In(cal.Location()).Weekday(); d == time.Saturday || d == time.Sunday {
			if w, ok := c.WeekendTau[period]; ok {
				return w, true
			}
		}
	}
	w, ok := c.Tau[period]
	return w, ok
}

// NonReservedCost is the cost of running without a reservation, seed 004
// Eq. 7.10: runtime x nodes x base cost (money per node-second). It is the
// floor every reservation price sits above (tau >= 1).
func NonReservedCost(baseCost decimal.Decimal, nodes int, runtime time.Duration) (decimal.Decimal, error) {
	const op slotfare.Op = "pricing.NonReservedCost"
	if nodes <= 0 {
		return decimal.Decimal{}, slotfare.Errorf(op, "nodes", "nodes must be positive, got %d", nodes)
	}
	if baseCost.IsNegative() {
		return decimal.Decimal{}, slotfare.Errorf(op, "base_cost", "base cost must not be negative, got %s", baseCost)
	}
	if runtime < 0 {
		return decimal.Decimal{}, slotfare.Errorf(op, "runtime", "runtime must not be negative, got %s", runtime)
	}
	return baseCost.Mul(decimal.NewFromInt(int64(nodes))).Mul(priceSeconds(runtime)), nil
}

// Penalty is the fee for a cancelled or no-show reservation of the given
// price: alpha_p x price (seed 004 Sec. 7.6.2; alpha_p = 0 is fully
// refundable, 1 non-refundable). Full precision; see SettleCancellation for
// the rounded split of a posted charge.
func Penalty(class FareClass, price decimal.Decimal) (decimal.Decimal, error) {
	const op slotfare.Op = "pricing.Penalty"
	if err := checkPenaltyInputs(op, class, price); err != nil {
		return decimal.Decimal{}, err
	}
	return class.PenaltyRate.Mul(price), nil
}

// SettleCancellation splits a charge already posted (at the currency's scale)
// for a cancelled or no-show booking into the penalty kept, alpha_p x charged
// rounded half-even to places, and the refund, charged - penalty, so the two
// always sum to the charge exactly (seed 004 Sec. 7.6.2). The service calls it
// on cancel (and on no-show, where the refund is what goes back).
func SettleCancellation(class FareClass, charged decimal.Decimal, places int32) (penalty, refund decimal.Decimal, err error) {
	const op slotfare.Op = "pricing.SettleCancellation"
	if err := checkPenaltyInputs(op, class, charged); err != nil {
		return decimal.Decimal{}, decimal.Decimal{}, err
	}
	penalty = RoundMoney(class.PenaltyRate.Mul(charged), places)
	return penalty, charged.Sub(penalty), nil
}

func checkPenaltyInputs(op slotfare.Op, class FareClass, price decimal.Decimal) error {
	if class.PenaltyRate.IsNegative() || class.PenaltyRate.GreaterThan(decimal.NewFromInt(1)) {
		return slotfare.Errorf(op, "penalty_rate", "penalty rate %s of fare class %q is outside [0, 1]", class.PenaltyRate, class.Name)
	}
	if price.IsNegative() {
		return slotfare.Errorf(op, "price", "price must not be negative, got %s", price)
	}
	return nil
}

// DeniedServiceCost is the compensation owed to a booking of the given price
// that is denied at its start because the resource is overbooked: Eq. 7.11
// with tau_ds in place of tau (seed 004 Sec. 7.6.3). Since tau_ds =
// DeniedCostFactor x tau in every period (Table 7.9), it is exactly
// DeniedCostFactor x price when price is the unrounded ReservationPrice.Total
// (pass the posted charge instead to compensate on what was paid). This is the
// denied cost the denial strategies (overbook) sort by.
func DeniedServiceCost(class FareClass, price decimal.Decimal) (decimal.Decimal, error) {
	const op slotfare.Op = "pricing.DeniedServiceCost"
	if !class.DeniedCostFactor.GreaterThan(decimal.NewFromInt(1)) {
		return decimal.Decimal{}, slotfare.Errorf(op, "denied_cost_factor", "denied-cost factor %s of fare class %q must exceed 1", class.DeniedCostFactor, class.Name)
	}
	if price.IsNegative() {
		return decimal.Decimal{}, slotfare.Errorf(op, "price", "price must not be negative, got %s", price)
	}
	return class.DeniedCostFactor.Mul(price), nil
}

// priceSeconds is d in seconds, exactly.
func priceSeconds(d time.Duration) decimal.Decimal { return decimal.New(int64(d), -9) }
