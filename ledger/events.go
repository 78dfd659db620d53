package ledger

import (
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

// This file holds the builders: the accounting of each money event of a
// booking's life, so that the service only says what happened. Builders
// read the booking's history from the ledger and return postings to Prepare
// (or Append); they change nothing themselves. Posting ids are derived
// from the booking id and the event, so an event cannot be posted twice:
//
//	<booking>/charge                  Charge
//	<booking>/adjustment/<n>          Modification or Extension, the n-th re-pricing
//	<booking>/reduction_penalty/<n>   Modification, what the n-th kept of a lower price
//	<booking>/refund                  Cancellation, NoShow, Denial
//	<booking>/cancellation_penalty    Cancellation with a penalty
//	<booking>/no_show_penalty         NoShow with a penalty
//	<booking>/compensation            Denial with a compensation

// Charge bills a committed booking its price, rounded once to the
// currency's scale: debit the customer's receivable, credit the resource's
// revenue.
func (l *Ledger) Charge(b BookingRef, price decimal.Decimal, at time.Time) (Posting, error) {
	const op slotfare.Op = "ledger.Charge"
	if err := b.check(op, true); err != nil {
		return Posting{}, err
	}
	if err := checkTime(op, at); err != nil {
		return Posting{}, err
	}
	amt, err := l.positive(op, "price", b.Currency, price)
	if err != nil {
		return Posting{}, err
	}
	return Posting{
		ID: b.ID + "/charge", Time: at, Kind: KindCharge, BookingID: b.ID,
		Customer: b.Customer, Resource: b.Resource, Currency: b.Currency, Scale: l.Rule(b.Currency).Scale,
		Description: "booking " + b.ID + " on " + b.Resource,
		Lines: []Line{
			DebitLine(CustomerAccount(b.Customer), amt),
			CreditLine(Account(Revenue, b.Resource), amt),
		},
	}, nil
}

// Repricing is what modifying a booking posts: the difference between the
// new price and what the booking was billed so far, and the penalty a
// reduction keeps.
type Repricing struct {
	// Postings is one adjustment posting, or none when the price is
	// unchanged, then a reduction_penalty posting when one is due.
	Postings   []Posting
	Previous   decimal.Decimal // billed before: charge plus earlier re-pricings
	Price      decimal.Decimal // the new price, rounded
	Difference decimal.Decimal // Price - Previous; positive bills, negative credits
	// Penalty is what the provider keeps of a price that went down:
	// penaltyRate x (Previous - Price), rounded once; zero otherwise.
	Penalty decimal.Decimal
}

// Modification re-prices a charged, unsettled booking to price. A higher
// price bills the difference (debit receivable, credit revenue); a lower
// one credits it back (debit the resource's refunds, credit receivable).
// The original charge is never edited: the difference is a new posting.
//
// A booking keeps the currency it was sold in: price must be in it, or
// the modification is a Conflict (a price in another unit is not a
// difference that can be posted).
//
// A lower price gives part of the booking up before its start, which is a
// partial cancellation: the provider keeps penaltyRate (the class's
// alpha_p, 0 <= rate <= 1) of what is given up, as a cancellation would on
// that part (seed 004 Sec. 7.6.2), in a reduction_penalty posting (debit
// receivable, credit penalty revenue), rounded on its own. It stays
// outside what is billed, so a later cancellation refunds the new price
// less its own penalty, and the two penalties add up to what cancelling
// the whole would have kept, to within the rounding of each.
func (l *Ledger) Modification(bookingID string, price decimal.Decimal, currency Currency, penaltyRate decimal.Decimal, at time.Time) (Repricing, error) {
	const op slotfare.Op = "ledger.Modification"
	s, err := l.standing(op, bookingID, at)
	if err != nil {
		return Repricing{}, err
	}
	if currency != s.ref.Currency {
		return Repricing{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("currency"),
			"booking "+bookingID+" is billed in "+string(s.ref.Currency)+"; a price in "+string(currency)+" cannot re-price it")
	}
	if penaltyRate.Sign() < 0 || penaltyRate.GreaterThan(decimal.NewFromInt(1)) {
		return Repricing{}, slotfare.Errorf(op, "penalty_rate", "must be between 0 and 1, got %s", penaltyRate)
	}
	amt, err := l.positive(op, "price", s.ref.Currency, price)
	if err != nil {
		return Repricing{}, err
	}
	r := l.Rule(s.ref.Currency)
	cur := " " + string(s.ref.Currency)
	out := Repricing{Previous: s.billed, Price: amt, Difference: amt.Sub(s.billed), Penalty: decimal.Zero}
	if out.Difference.IsZero() {
		return out, nil
	}
	n := strconv.Itoa(s.adjustments + 1)
	p := s.posting(KindAdjustment, bookingID+"/adjustment/"+n, at, r.Scale,
		"booking "+bookingID+" re-priced from "+r.Format(s.billed)+" to "+r.Format(amt)+cur)
	d := out.Difference.Abs()
	if out.Difference.Sign() > 0 {
		p.Lines = []Line{DebitLine(CustomerAccount(s.ref.Customer), d), CreditLine(Account(Revenue, s.ref.Resource), d)}
	} else {
		p.Lines = []Line{DebitLine(Account(Refunds, s.ref.Resource), d), CreditLine(CustomerAccount(s.ref.Customer), d)}
	}
	out.Postings = []Posting{p}
	if out.Difference.Sign() < 0 {
		out.Penalty = r.Round(penaltyRate.Mul(d))
	}
	if out.Penalty.Sign() > 0 {
		q := s.posting(KindReductionPenalty, bookingID+"/reduction_penalty/"+n, at, r.Scale,
			"penalty for reducing booking "+bookingID+": "+percent(penaltyRate)+" of the "+r.Format(d)+cur+" given up")
		q.Lines = []Line{DebitLine(CustomerAccount(s.ref.Customer), out.Penalty), CreditLine(Account(PenaltyRevenue, s.ref.Resource), out.Penalty)}
		out.Postings = append(out.Postings, q)
	}
	return out, nil
}

// Extension bills a charged, unsettled booking for time added to its end
// (until): added, the added time's price, rounded once, raises what the
// booking is billed, in an adjustment posting (debit receivable, credit
// revenue) that invoices show as a charge. A later settlement refunds it
// with the rest.
func (l *Ledger) Extension(bookingID string, added decimal.Decimal, currency Currency, until, at time.Time) (Posting, error) {
	const op slotfare.Op = "ledger.Extension"
	s, err := l.standing(op, bookingID, at)
	if err != nil {
		return Posting{}, err
	}
	if currency != s.ref.Currency {
		return Posting{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("currency"),
			"booking "+bookingID+" is billed in "+string(s.ref.Currency)+"; an extension in "+string(currency)+" cannot be billed with it")
	}
	amt, err := l.positive(op, "price", s.ref.Currency, added)
	if err != nil {
		return Posting{}, err
	}
	r := l.Rule(s.ref.Currency)
	p := s.posting(KindAdjustment, bookingID+"/adjustment/"+strconv.Itoa(s.adjustments+1), at, r.Scale,
		"booking "+bookingID+" extended to "+until.UTC().Format(time.RFC3339)+": "+r.Format(amt)+" "+string(s.ref.Currency)+" more")
	p.Lines = []Line{DebitLine(CustomerAccount(s.ref.Customer), amt), CreditLine(Account(Revenue, s.ref.Resource), amt)}
	return p, nil
}

// Settlement is what ending a booking without service posts, with the
// figures the service reports. Charged = Penalty + Refund exactly.
type Settlement struct {
	Postings []Posting
	// Charged is what the booking was billed: charge plus re-pricings.
	Charged decimal.Decimal
	// Penalty is the part the provider keeps: penalty rate x Charged,
	// rounded once (seed 004, Sec. 7.6.2).
	Penalty decimal.Decimal
	// Refund is the part returned to the customer: Charged - Penalty.
	Refund decimal.Decimal
	// Compensation is what a denied customer receives on top (seed 004,
	// Sec. 7.6.3); zero for cancellations and no-shows.
	Compensation decimal.Decimal
}

// Cancellation settles a booking cancelled before its start: the whole
// amount billed is credited back (a refund posting: debit the resource's
// refunds, credit the customer's receivable) and the penalty, penaltyRate
// times the amount billed (0 <= rate <= 1, the thesis's alpha_p), is billed
// anew (a cancellation_penalty posting: debit receivable, credit the
// resource's penalty revenue). The customer's net credit is Refund =
// Charged - Penalty; service revenue nets to zero through refunds and the
// penalty shows as penalty revenue. With rate 0 there is no penalty
// posting.
func (l *Ledger) Cancellation(bookingID string, penaltyRate decimal.Decimal, at time.Time) (Settlement, error) {
	return l.settle("ledger.Cancellation", KindCancellationPenalty, "cancelled", bookingID, penaltyRate, decimal.Zero, at)
}

// NoShow settles a booking whose user did not check in by its start plus
// grace, exactly as Cancellation does but with a no_show_penalty posting.
func (l *Ledger) NoShow(bookingID string, penaltyRate decimal.Decimal, at time.Time) (Settlement, error) {
	return l.settle("ledger.NoShow", KindNoShowPenalty, "not shown", bookingID, penaltyRate, decimal.Zero, at)
}

// Denial settles a booking bumped by overbooking: the whole amount billed
// is refunded, no penalty, and the compensation (the thesis's cost_ds,
// computed by pricing) is credited to the customer (debit the resource's
// compensation expense, credit receivable). A zero compensation posts none.
func (l *Ledger) Denial(bookingID string, compensation decimal.Decimal, at time.Time) (Settlement, error) {
	return l.settle("ledger.Denial", KindCompensation, "denied", bookingID, decimal.Zero, compensation, at)
}

func (l *Ledger) settle(op slotfare.Op, kind Kind, what, bookingID string, rate, comp decimal.Decimal, at time.Time) (Settlement, error) {
	s, err := l.standing(op, bookingID, at)
	if err != nil {
		return Settlement{}, err
	}
	if rate.Sign() < 0 || rate.GreaterThan(decimal.NewFromInt(1)) {
		return Settlement{}, slotfare.Errorf(op, "penalty_rate", "must be between 0 and 1, got %s", rate)
	}
	if comp.Sign() < 0 {
		return Settlement{}, slotfare.Errorf(op, "compensation", "must not be negative, got %s", comp)
	}
	r := l.Rule(s.ref.Currency)
	cur := " " + string(s.ref.Currency)
	out := Settlement{Charged: s.billed, Penalty: r.Round(rate.Mul(s.billed)), Compensation: r.Round(comp)}
	out.Refund = out.Charged.Sub(out.Penalty)

	refund := s.posting(KindRefund, bookingID+"/refund", at, r.Scale,
		"booking "+bookingID+" "+what+": the "+r.Format(s.billed)+cur+" billed is credited back")
	refund.Lines = []Line{DebitLine(Account(Refunds, s.ref.Resource), s.billed), CreditLine(CustomerAccount(s.ref.Customer), s.billed)}
	out.Postings = []Posting{refund}
	if kind.penalty() && out.Penalty.Sign() > 0 {
		p := s.posting(kind, bookingID+"/"+string(kind), at, r.Scale,
			penaltyName(kind)+" for booking "+bookingID+": "+percent(rate)+" of "+r.Format(s.billed)+cur)
		p.Lines = []Line{DebitLine(CustomerAccount(s.ref.Customer), out.Penalty), CreditLine(Account(PenaltyRevenue, s.ref.Resource), out.Penalty)}
		out.Postings = append(out.Postings, p)
	}
	if kind == KindCompensation && out.Compensation.Sign() > 0 {
		p := s.posting(KindCompensation, bookingID+"/compensation", at, r.Scale, "compensation for denied booking "+bookingID)
		p.Lines = []Line{DebitLine(Account(CompensationExpense, s.ref.Resource), out.Compensation), CreditLine(CustomerAccount(s.ref.Customer), out.Compensation)}
		out.Postings = append(out.Postings, p)
	}
	return out, nil
}

// Compensation credits a customer amount at the expense of a resource,
// outside a denial (a goodwill gesture, a provider's fault). id names the
// posting; empty means "<b.ID>/compensation", which needs a booking id.
// b.ID may be empty; if set, the booking must be charged in the ledger.
func (l *Ledger) Compensation(id string, b BookingRef, amount decimal.Decimal, at time.Time) (Posting, error) {
	const op slotfare.Op = "ledger.Compensation"
	if err := b.check(op, id == ""); err != nil {
		return Posting{}, err
	}
	if id == "" {
		id = b.ID + "/compensation"
	}
	if err := checkID(op, "id", id); err != nil {
		return Posting{}, err
	}
	if err := checkTime(op, at); err != nil {
		return Posting{}, err
	}
	amt, err := l.positive(op, "amount", b.Currency, amount)
	if err != nil {
		return Posting{}, err
	}
	desc := "compensation from " + b.Resource
	if b.ID != "" {
		desc = "compensation for booking " + b.ID
	}
	return Posting{
		ID: id, Time: at, Kind: KindCompensation, BookingID: b.ID,
		Customer: b.Customer, Resource: b.Resource, Currency: b.Currency, Scale: l.Rule(b.Currency).Scale,
		Description: desc,
		Lines: []Line{
			DebitLine(Account(CompensationExpense, b.Resource), amt),
			CreditLine(CustomerAccount(b.Customer), amt),
		},
	}, nil
}

// standing returns a copy of the state of a charged booking that is not
// settled yet: NotFound if the ledger has no charge for it, Conflict if it
// is settled.
func (l *Ledger) standing(op slotfare.Op, bookingID string, at time.Time) (*bookingState, error) {
	if err := checkID(op, "booking_id", bookingID); err != nil {
		return nil, err
	}
	if err := checkTime(op, at); err != nil {
		return nil, err
	}
	l.mu.RLock()
	s := l.book.bookings[bookingID].clone()
	l.mu.RUnlock()
	if s == nil {
		return nil, slotfare.E(op, slotfare.NotFound, slotfare.Field("booking_id"), "booking "+bookingID+" has no charge in the ledger")
	}
	if s.settled() {
		return nil, slotfare.E(op, slotfare.Conflict, slotfare.Field("booking_id"), "booking "+bookingID+" is already settled")
	}
	return s, nil
}

// posting starts a posting of the booking (lines to be filled in).
func (s *bookingState) posting(k Kind, id string, at time.Time, scale int32, desc string) Posting {
	return Posting{
		ID: id, Time: at, Kind: k, BookingID: s.ref.ID, Customer: s.ref.Customer,
		Resource: s.ref.Resource, Currency: s.ref.Currency, Scale: scale, Description: desc,
	}
}

// positive rounds a price or amount once to the currency's scale and checks
// it is still positive.
func (l *Ledger) positive(op slotfare.Op, field string, c Currency, d decimal.Decimal) (decimal.Decimal, error) {
	r := l.Rule(c)
	amt := r.Round(d)
	if amt.Sign() <= 0 {
		return decimal.Zero, slotfare.Errorf(op, field, "must be positive at %s's scale of %d, got %s", c, r.Scale, d)
	}
	return amt, nil
}

func checkTime(op slotfare.Op, t time.Time) error {
	if t.IsZero() {
		return slotfare.Errorf(op, "time", "must be set")
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return slotfare.Errorf(op, "time", "year %d is outside 1..9999", y)
	}
	return nil
}

func penaltyName(k Kind) string {
	if k == KindNoShowPenalty {
		return "no-show penalty"
	}
	return "cancellation penalty"
}

// percent writes a rate as a percentage without trailing zeros: 0.1 -> "10%".
func percent(rate decimal.Decimal) string {
	p := rate.Shift(2)
	s := p.StringFixed(max(0, -p.Exponent()))
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "%"
}
