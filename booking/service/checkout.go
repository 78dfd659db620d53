package service

import (
	"context"
	"fmt"

	"slotfare"
	"slotfare/booking"
)

// Checkout records that an active booking's job has finished (user only):
// FinishedAt is set to now, and the run recorded against the booking's
// profile when it completes lasts from its StartedAt to then, not to the
// end it reserved (issue 13: completed bookings record their actual run
// time). The booking stays active, its nodes its own, until its end. A
// second checkout answers the booking as it is; anything but an active
// booking is a Conflict.
func (s *Service) Checkout(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	const op slotfare.Op = "service.Checkout"
	return s.onLive(ctx, op, p, id, func(e *entry) (booking.Booking, error) {
		rec := e.rec
		b := rec.Booking
		if b.FinishedAt != nil {
			return b, nil
		}
		if b.Status != booking.Active {
			return booking.Booking{}, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("a %s booking cannot check out: only a running (active) one", b.Status))
		}
		now := stamp(s.now())
		rec.Booking.FinishedAt, rec.Booking.UpdatedAt = &now, now
		if err := s.apply(ctx, op, []change{{e, rec, booking.Active}}, nil, nil); err != nil {
			return booking.Booking{}, err
		}
		return rec.Booking, nil
	})
}
