package ledger

import (
	"slices"

	"github.com/shopspring/decimal"

	"slotfare"
)

// BookingRef is what a posting needs to know about the booking it bills:
// its id, its customer (the API's account_id), its resource and the
// resource's currency.
type BookingRef struct {
	ID       string
	Customer string
	Resource string
	Currency Currency
}

func (b BookingRef) check(op slotfare.Op, needID bool) error {
	if needID || b.ID != "" {
		if err := checkID(op, "booking_id", b.ID); err != nil {
			return err
		}
	}
	if err := checkID(op, "account_id", b.Customer); err != nil {
		return err
	}
	if err := checkID(op, "resource_id", b.Resource); err != nil {
		return err
	}
	return checkCurrency(op, "currency", b.Currency)
}

// bookingState is a booking's money so far, as its postings left it. The
// ledger keeps one per booking and checks every new posting of the booking
// against it, so that a booking is charged once, re-priced only while it
// stands, and settled once: one refund of everything billed, at most one
// penalty.
type bookingState struct {
	ref         BookingRef
	billed      decimal.Decimal // charge plus adjustments: what the booking costs
	adjustments int
	refunded    bool // the billed amount has been credited back
	penalty     decimal.Decimal
	penalized   bool
	// kept is what reductions kept as penalties: outside billed, so never
	// refunded by a later settlement.
	kept     decimal.Decimal
	postings []string // ids in commit order
}

func (s *bookingState) clone() *bookingState {
	if s == nil {
		return nil
	}
	c := *s
	c.postings = slices.Clone(s.postings)
	return &c
}

// settled reports whether the booking has been cancelled, marked a no-show
// or denied in the ledger: its refund or its penalty is posted (a
// settlement posts both in one batch, in either order).
func (s *bookingState) settled() bool { return s != nil && (s.refunded || s.penalized) }

// apply checks p (normalized, of this booking) against the state and
// returns the state after it; s is modified. Errors are Conflicts.
func (s *bookingState) apply(p Posting) (*bookingState, error) {
	conflict := func(msg string) error {
		return slotfare.E(slotfare.Op("ledger.booking"), slotfare.Conflict, slotfare.Field("booking_id"), "booking "+p.BookingID+": "+msg)
	}
	if s == nil {
		if p.Kind != KindCharge {
			return nil, conflict("has no charge; a " + string(p.Kind) + " posting needs one")
		}
		return &bookingState{
			ref:      BookingRef{ID: p.BookingID, Customer: p.Customer, Resource: p.Resource, Currency: p.Currency},
			billed:   p.CustomerAmount(),
			postings: []string{p.ID},
		}, nil
	}
	if p.Kind == KindCharge {
		return nil, conflict("is already charged (posting " + s.postings[0] + ")")
	}
	if p.Customer != s.ref.Customer || p.Resource != s.ref.Resource || p.Currency != s.ref.Currency {
		return nil, conflict("posting " + p.ID + " names account " + p.Customer + ", resource " + p.Resource +
			", currency " + string(p.Currency) + "; the booking's charge named " + s.ref.Customer + ", " +
			s.ref.Resource + ", " + string(s.ref.Currency))
	}
	amt := p.CustomerAmount()
	switch {
	case p.Kind == KindAdjustment:
		if s.settled() {
			return nil, conflict("is settled; it cannot be re-priced")
		}
		nb := s.billed.Add(amt)
		if nb.Sign() <= 0 {
			return nil, conflict("re-pricing by " + amt.String() + " would leave " + nb.String() + " billed")
		}
		s.billed = nb
		s.adjustments++
	case p.Kind == KindRefund:
		if s.refunded {
			return nil, conflict("is already refunded")
		}
		if !amt.Neg().Equal(s.billed) {
			return nil, conflict("a refund credits the whole amount billed, " + s.billed.String() + ", not " + amt.Neg().String())
		}
		s.refunded = true
	case p.Kind == KindReductionPenalty:
		if s.settled() {
			return nil, conflict("is settled; nothing of it can be given up")
		}
		s.kept = s.kept.Add(amt)
	case p.Kind.penalty():
		switch {
		case s.penalized:
			return nil, conflict("already has a penalty")
		case amt.GreaterThan(s.billed):
			return nil, conflict("penalty " + amt.String() + " exceeds the amount billed, " + s.billed.String())
		}
		s.penalized, s.penalty = true, amt
	}
	// Compensation needs nothing more than a booking that was charged.
	s.postings = append(s.postings, p.ID)
	return s, nil
}
