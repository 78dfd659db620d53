package service

import (
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/ledger"
	"slotfare/pricing"
)

// saleTerms are the terms of class as a booking sold in it now carries
// them (seed 004 Sec. 7.6.2-7.6.3: alpha_p on a no-show, tau_ds / tau on
// a denial), with its cancellation schedule by lead time.
func saleTerms(c pricing.FareClass, source string) *booking.SaleTerms {
	sched := c.Schedule()
	steps := make([]booking.CancellationStep, len(sched))
	for i, st := range sched {
		steps[i] = booking.CancellationStep{BeforeStartSeconds: st.BeforeStartSeconds, PenaltyRate: st.PenaltyRate}
	}
	return &booking.SaleTerms{Source: source, Cancellation: steps, NoShowPenaltyRate: c.PenaltyRate, DeniedCostFactor: c.DeniedCostFactor}
}

// termsOf are the terms booking b was sold under: its own, or, for a
// record stored before bookings carried them, its class's as configured
// now (TermsFromConfiguration); a class no longer configured keeps
// nothing on a cancellation or no-show and owes the price on a denial,
// as such bookings were settled before.
func (s *Service) termsOf(r *resource, b booking.Booking) booking.SaleTerms {
	if b.Terms != nil {
		return *b.Terms
	}
	if r != nil {
		r.mu.Lock()
		_, c, ok := r.classIndex(b.FareClass)
		r.mu.Unlock()
		if ok {
			return *saleTerms(c, booking.TermsFromConfiguration)
		}
	}
	return booking.SaleTerms{Source: booking.TermsFromConfiguration,
		Cancellation:      []booking.CancellationStep{{BeforeStartSeconds: 0, PenaltyRate: decimal.Zero}},
		NoShowPenaltyRate: decimal.Zero, DeniedCostFactor: decimal.NewFromInt(1)}
}

// withTerms is b as shown: a record stored before bookings carried terms
// shows the terms it will be settled under (termsOf) until its next change
// stores them, or, settled, its refund as its invoice shows it.
func (s *Service) withTerms(b booking.Booking) booking.Booking {
	if b.Terms != nil {
		return b
	}
	if b.Status.Final() {
		b.RefundAsInvoiced()
		return b
	}
	t := s.termsOf(s.resource(b.ResourceID), b)
	b.Terms = &t
	return b
}

// cancellationRate is the penalty rate the terms keep of a cancellation
// made lead before the start.
func cancellationRate(t booking.SaleTerms, lead time.Duration) decimal.Decimal {
	sched := make([]pricing.CancellationStep, len(t.Cancellation))
	for i, st := range t.Cancellation {
		sched[i] = pricing.CancellationStep{BeforeStartSeconds: st.BeforeStartSeconds, PenaltyRate: st.PenaltyRate}
	}
	return pricing.CancellationRate(sched, lead)
}

// settled records on b how a settlement ended it, as its invoice shows it:
// refund is everything billed, credited back; penalty what is kept, billed
// apart (this settlement's and any kept earlier of a price reduction);
// compensation what a denial credits on top. The customer owes for the
// booking price.total + penalty - refund - compensation, the sum of its
// invoice lines.
func settled(b *booking.Booking, st ledger.Settlement) {
	pen, ref, comp := keptBefore(*b).Add(st.Penalty), st.Charged, st.Compensation
	b.Penalty, b.Refund = &pen, &ref
	if comp.Sign() > 0 {
		b.Compensation = &comp
	}
}

// keptBefore is what b's penalties add up to so far (kept of price
// reductions), zero if none.
func keptBefore(b booking.Booking) decimal.Decimal {
	if b.Penalty == nil {
		return decimal.Zero
	}
	return *b.Penalty
}
