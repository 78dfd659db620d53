package runs

import (
	"context"
	"time"

	"slotfare"
	"slotfare/booking"
)

// FromBooking is the run of a completed booking that named a profile
// (issue 13: completed bookings record their actual run time). Its run
// time is measured from when the job started, the later of the booking's
// start and the tick that made it active (a show that checked in late
// starts late; the tick stamps the booking as it activates it, and nothing
// changes an active booking after), to the booking's end, when the tick
// completes it: the time the nodes were the job's. slotfare has no
// checkout, so a job that finished early still counts until the end it
// reserved. Run id is the booking id, so recording it again (a retried
// tick, another replica) changes nothing. ok is false without a profile or
// a positive run time.
func FromBooking(b booking.Booking, now time.Time) (Run, bool) {
	if b.Profile == "" {
		return Run{}, false
	}
	started := b.Start
	if b.UpdatedAt.After(started) {
		started = b.UpdatedAt
	}
	rt := b.End.Sub(started)
	if rt <= 0 {
		return Run{}, false
	}
	return Run{ID: b.ID, Profile: b.Profile, ResourceID: b.ResourceID, Runtime: rt, FinishedAt: b.End,
		AccountID: b.AccountID, RecordedAt: now}, true
}

// RecordCompleted returns the function the booking service calls as it
// completes a booking (service.Options.OnComplete): the booking's run,
// appended to st. A run already recorded under the booking's id, with the
// same values or not, is left as it is: the completion goes on.
func RecordCompleted(st Store, now func() time.Time) func(ctx context.Context, b booking.Booking) error {
	if now == nil {
		now = time.Now
	}
	return func(ctx context.Context, b booking.Booking) error {
		r, ok := FromBooking(b, now().UTC())
		if !ok {
			return nil
		}
		if _, _, err := st.Append(ctx, r); err != nil && slotfare.KindOf(err) != slotfare.Conflict {
			return err
		}
		return nil
	}
}
