package service

import (
	"context"

	"slotfare"
	"slotfare/booking"
)

// Prepare answers whether hold id of p's could be committed now, changing
// nothing (user only): the refusal Commit would answer, a Conflict for a
// hold whose time or start has passed, NoCapacity for one no longer within
// the limits in force. A committed booking is answered as it is. The
// co-reservation broker prepares every part before it commits any, so
// that a part refused at commit is found before a sibling is charged.
func (s *Service) Prepare(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	const op slotfare.Op = "service.Prepare"
	return s.onLive(ctx, op, p, id, func(e *entry) (booking.Booking, error) {
		b := e.rec.Booking
		if b.Status == booking.Committed {
			return b, nil
		}
		if err := booking.CheckTransition(op, b.Status, booking.Committed); err != nil {
			return booking.Booking{}, err
		}
		if expired, why := holdLapsed(b, s.now().UTC()); expired {
			return booking.Booking{}, slotfare.E(op, slotfare.Conflict, why)
		}
		r := e.res
		r.mu.Lock()
		within, err := r.within(ctx, e)
		r.mu.Unlock()
		if err != nil {
			return booking.Booking{}, slotfare.E(op, goneMeanwhile(op, b.ID, err))
		}
		if !within {
			return booking.Booking{}, slotfare.E(op, slotfare.NoCapacity, "the hold no longer fits the resource's current limits; it cannot be committed")
		}
		return b, nil
	})
}

// Unwind cancels booking id of p's for the co-reservation broker, whose
// co-reservation failed as a whole after it committed this part: all that
// was billed is refunded, no penalty kept (the broker's rollback is not the
// user's cancellation). A hold is released as Cancel releases it. It is
// not offered over HTTP, where a user cancels with the class's penalty.
func (s *Service) Unwind(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	return s.cancel(ctx, "service.Unwind", p, id, "", true)
}
