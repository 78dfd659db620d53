package ledger

import (
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"slotfare"
)

// Kind is the money event a posting records. The first five are the
// invoice line kinds of API.md; Adjustment is a modification's re-pricing
// difference and shows on invoices as a charge (price up) or a refund
// (price down); ReductionPenalty is what a reduction keeps (a partial
// cancellation) and shows on invoices as a cancellation penalty.
type Kind string

const (
	KindCharge              Kind = "charge"
	KindCancellationPenalty Kind = "cancellation_penalty"
	KindNoShowPenalty       Kind = "no_show_penalty"
	KindRefund              Kind = "refund"
	KindCompensation        Kind = "compensation"
	KindAdjustment          Kind = "adjustment"
	KindReductionPenalty    Kind = "reduction_penalty"
)

// shape is one allowed form of a posting: every debit line on role debit,
// every credit line on role credit.
type shape struct{ debit, credit Role }

// shapes is the accounting rule of each kind: which role is debited and
// which credited. Every kind moves money between the customer's receivable
// and one resource-side role, so a posting's effect on the customer is a
// single signed amount (see Posting.CustomerAmount).
func (k Kind) shapes() []shape {
	switch k {
	case KindCharge:
		return []shape{{Receivable, Revenue}}
	case KindCancellationPenalty, KindNoShowPenalty, KindReductionPenalty:
		return []shape{{Receivable, PenaltyRevenue}}
	case KindRefund:
		return []shape{{Refunds, Receivable}}
	case KindCompensation:
		return []shape{{CompensationExpense, Receivable}}
	case KindAdjustment:
		return []shape{{Receivable, Revenue}, {Refunds, Receivable}}
	}
	return nil
}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k.shapes() != nil }

// penalty reports whether k is one of the two penalty kinds.
func (k Kind) penalty() bool { return k == KindCancellationPenalty || k == KindNoShowPenalty }

// Side is the column a line is entered in.
type Side string

const (
	Debit  Side = "debit"
	Credit Side = "credit"
)

// Line is one entry of a posting: Amount (positive) on one Side of one
// account.
type Line struct {
	Account AccountID
	Side    Side
	Amount  decimal.Decimal
}

// DebitLine and CreditLine build lines.
func DebitLine(a AccountID, amount decimal.Decimal) Line  { return Line{a, Debit, amount} }
func CreditLine(a AccountID, amount decimal.Decimal) Line { return Line{a, Credit, amount} }

// Posting is one balanced, immutable ledger transaction: the lines of a
// single money event for one customer, one resource and one currency.
// Postings are only ever added; a correction is a new posting.
type Posting struct {
	// ID identifies the posting; appending an id twice with the same
	// content is a no-op. The builders derive it from the booking id and
	// the event ("bk1/charge"), so an event cannot be posted twice.
	ID string
	// Time is when the event happened, in UTC; it places the posting in
	// its invoice month and orders entries (time, then id).
	Time time.Time
	Kind Kind
	// BookingID is the booking the money belongs to; required for every
	// kind but compensation.
	BookingID string
	// Customer is the customer's account id (the API's account_id); every
	// posting touches that customer's receivable and no other customer's.
	Customer string
	// Resource is the resource (the API's resource_id) whose provider
	// accounts the posting touches; at least one line is on it.
	Resource string
	Currency Currency
	// Scale is the currency's scale the amounts were rounded to; the
	// ledger sets it when the posting is prepared.
	Scale       int32
	Description string
	Lines       []Line
}

// maxDescription bounds a posting's description.
const maxDescription = 500

// CustomerAmount is the posting's effect on its customer's receivable,
// debits minus credits: positive when it bills the customer (charge,
// penalty, price up), negative when it credits them (refund,
// compensation, price down). It is the amount of the posting's invoice line.
func (p Posting) CustomerAmount() decimal.Decimal {
	own := CustomerAccount(p.Customer)
	sum := decimal.Zero
	for _, l := range p.Lines {
		if l.Account != own {
			continue
		}
		if l.Side == Debit {
			sum = sum.Add(l.Amount)
		} else {
			sum = sum.Sub(l.Amount)
		}
	}
	return sum
}

// InvoiceKind is the kind of the posting's invoice line: its own kind, but
// "charge" for an adjustment (a re-pricing: positive when the price went
// up, negative when down) and "cancellation_penalty" for a reduction's
// penalty (it is one, on the part given up), so that invoices only show
// the five kinds of API.md and a booking's charge lines sum to its price,
// its penalty lines to its penalty and its refund lines to its refund.
func (p Posting) InvoiceKind() Kind {
	switch p.Kind {
	case KindReductionPenalty:
		return KindCancellationPenalty
	case KindAdjustment:
		return KindCharge
	}
	return p.Kind
}

// clone returns a copy of p that shares no memory with it.
func (p Posting) clone() Posting {
	p.Lines = append([]Line(nil), p.Lines...)
	return p
}

// sameContent reports whether a and b (both normalized) record the same
// event: every field equal, amounts and times by value.
func sameContent(a, b Posting) bool {
	if a.ID != b.ID || !a.Time.Equal(b.Time) || a.Kind != b.Kind || a.BookingID != b.BookingID ||
		a.Customer != b.Customer || a.Resource != b.Resource || a.Currency != b.Currency ||
		a.Scale != b.Scale || a.Description != b.Description || len(a.Lines) != len(b.Lines) {
		return false
	}
	for i := range a.Lines {
		x, y := a.Lines[i], b.Lines[i]
		if x.Account != y.Account || x.Side != y.Side || !x.Amount.Equal(y.Amount) {
			return false
		}
	}
	return true
}

// normalize checks p against the ledger's rules for a single posting and
// returns it as it will be stored: time in UTC, every amount rounded once to
// the currency's scale with the remainders allocated so that debits still
// equal credits, lines that round to zero dropped, Scale set. The input
// must balance exactly before rounding. Errors are Invalid and name the
// field at fault.
func normalize(op slotfare.Op, p Posting, rule func(Currency) CurrencyRule) (Posting, error) {
	if err := checkPostingFields(op, p); err != nil {
		return Posting{}, err
	}
	total, err := checkPostingLines(op, p)
	if err != nil {
		return Posting{}, err
	}
	return roundPosting(op, p, rule(p.Currency), total)
}

// checkPostingFields checks what a posting says apart from its lines.
func checkPostingFields(op slotfare.Op, p Posting) error {
	if err := checkID(op, "id", p.ID); err != nil {
		return err
	}
	if p.Time.IsZero() {
		return slotfare.Errorf(op, "time", "posting %s has no time", p.ID)
	}
	if y := p.Time.UTC().Year(); y < 1 || y > 9999 {
		return slotfare.Errorf(op, "time", "year %d is outside 1..9999", y)
	}
	if !p.Kind.Valid() {
		return slotfare.Errorf(op, "kind", "%q is not a posting kind", string(p.Kind))
	}
	// Only a compensation may be without a booking.
	ref := BookingRef{ID: p.BookingID, Customer: p.Customer, Resource: p.Resource, Currency: p.Currency}
	if err := ref.check(op, p.Kind != KindCompensation); err != nil {
		return err
	}
	if len(p.Description) > maxDescription || !utf8.ValidString(p.Description) {
		return slotfare.Errorf(op, "description", "must be valid UTF-8 of at most %d bytes", maxDescription)
	}
	if len(p.Lines) < 2 {
		return slotfare.Errorf(op, "lines", "a posting needs at least one debit and one credit line, got %d lines", len(p.Lines))
	}
	return nil
}

// checkPostingLines checks the lines: accounts of the posting's customer
// and resource, positive amounts, each side on one role in a shape the
// kind allows, debits equal to credits. total is the debits' sum.
func checkPostingLines(op slotfare.Op, p Posting) (total decimal.Decimal, err error) {
	var debitRole, creditRole Role
	onResource := false
	debits, credits := decimal.Zero, decimal.Zero
	for i, l := range p.Lines {
		f := "lines[" + strconv.Itoa(i) + "]"
		a, err := ParseAccountID(string(l.Account), f+".account")
		if err != nil {
			return decimal.Zero, slotfare.E(op, err)
		}
		if a.Role().Customer() && a.Owner() != p.Customer {
			return decimal.Zero, slotfare.Errorf(op, f+".account", "%s belongs to another customer than the posting's %s", a, p.Customer)
		}
		if !a.Role().Customer() && a.Owner() == p.Resource {
			onResource = true
		}
		if l.Amount.Sign() <= 0 {
			return decimal.Zero, slotfare.Errorf(op, f+".amount", "must be positive, got %s", l.Amount)
		}
		var role *Role
		switch l.Side {
		case Debit:
			role = &debitRole
			debits = debits.Add(l.Amount)
		case Credit:
			role = &creditRole
			credits = credits.Add(l.Amount)
		default:
			return decimal.Zero, slotfare.Errorf(op, f+".side", "%q is not debit or credit", string(l.Side))
		}
		if *role != "" && *role != a.Role() {
			return decimal.Zero, slotfare.Errorf(op, f+".account", "a %s posting has all its %s lines on one role, got %s and %s", p.Kind, l.Side, *role, a.Role())
		}
		*role = a.Role()
	}
	if debitRole == "" || creditRole == "" {
		return decimal.Zero, slotfare.Errorf(op, "lines", "a posting needs at least one debit and one credit line")
	}
	ok := false
	for _, s := range p.Kind.shapes() {
		ok = ok || (s.debit == debitRole && s.credit == creditRole)
	}
	if !ok {
		return decimal.Zero, slotfare.Errorf(op, "lines", "a %s posting cannot debit %s and credit %s (want %s)", p.Kind, debitRole, creditRole, describeShapes(p.Kind))
	}
	if !onResource {
		return decimal.Zero, slotfare.Errorf(op, "lines", "no line is on resource %s's accounts", p.Resource)
	}
	if !debits.Equal(credits) {
		return decimal.Zero, slotfare.Errorf(op, "lines", "debits %s do not equal credits %s", debits, credits)
	}
	return debits, nil
}

// roundPosting is p as stored: time in UTC, each side's amounts rounded to
// r's scale with the remainders allocated so the sides still balance, and
// lines that round to zero dropped; total is refused if it rounds away.
func roundPosting(op slotfare.Op, p Posting, r CurrencyRule, total decimal.Decimal) (Posting, error) {
	if atScale(p.Lines, r.Scale) {
		// Every way of rounding leaves an amount at the scale as it is,
		// and the sides balance already: as stored postings are read.
		out := p
		out.Time, out.Scale, out.Lines = p.Time.UTC(), r.Scale, slices.Clone(p.Lines)
		return out, nil
	}
	return roundEach(op, p, r, total)
}

// roundEach is roundPosting of a posting whose amounts may need rounding.
func roundEach(op slotfare.Op, p Posting, r CurrencyRule, total decimal.Decimal) (Posting, error) {
	amounts := make([]decimal.Decimal, len(p.Lines))
	for _, side := range [...]Side{Debit, Credit} {
		var idx []int
		var exact []decimal.Decimal
		for i, l := range p.Lines {
			if l.Side == side {
				idx = append(idx, i)
				exact = append(exact, l.Amount)
			}
		}
		for j, a := range r.roundLines(exact) {
			amounts[idx[j]] = a
		}
	}
	out := p
	out.Time = p.Time.UTC()
	out.Scale = r.Scale
	out.Lines = make([]Line, 0, len(p.Lines))
	var kept [2]bool
	for i, l := range p.Lines {
		if amounts[i].Sign() > 0 {
			l.Amount = amounts[i]
			out.Lines = append(out.Lines, l)
			kept[b2i(l.Side == Credit)] = true
		}
	}
	if !kept[0] || !kept[1] {
		return Posting{}, slotfare.Errorf(op, "lines", "the total %s rounds to zero in %s (scale %d)", total, p.Currency, r.Scale)
	}
	return out, nil
}

// atScale reports whether every line's amount is written with exactly
// scale digits after the point (checkPostingLines found them positive).
func atScale(lines []Line, scale int32) bool {
	for _, l := range lines {
		if l.Amount.Exponent() != -scale {
			return false
		}
	}
	return true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func describeShapes(k Kind) string {
	s := ""
	for i, sh := range k.shapes() {
		if i > 0 {
			s += " or "
		}
		s += fmt.Sprintf("debit %s, credit %s", sh.debit, sh.credit)
	}
	return s
}
