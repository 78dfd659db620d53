package runs

import (
	"context"
	"time"

	"slotfare"
	"slotfare/booking"
)

// FromBooking is the run of a completed booking that named a profile
// (issue 13: completed bookings record their actual run time). Its run
// time lasts from when the job started, StartedAt (the tick that made the
// booking active; for a booking activated before StartedAt was kept, the
// later of its start and its last update, which was its activation), to
// when it finished: FinishedAt, set by a checkout
// (POST /v1/bookings/{id}/checkout), else the booking's end. Run id is the
// booking id, so recording it again (a retried tick, another replica)
// changes nothing. ok is false without a profile or a positive run time.
func FromBooking(b booking.Booking, now time.Time) (Run, bool) {
	if b.Profile == "" {
		return Run{}, false
	}
	started := b.Start
	switch {
	case b.StartedAt != nil:
		started = *b.StartedAt
	case b.UpdatedAt.After(started):
		started = b.UpdatedAt
	}
	finished := b.End
	if b.FinishedAt != nil && b.FinishedAt.Before(finished) {
		finished = *b.FinishedAt
	}
	rt := finished.Sub(started)
	if rt <= 0 {
		return Run{}, false
	}
	return Run{ID: b.ID, Profile: b.Profile, ResourceID: b.ResourceID, Runtime: rt, FinishedAt: finished,
		AccountID: b.AccountID, RecordedAt: now}, true
}

// RecordCompleted returns the function the booking service calls as it
// completes a booking (service.Options.OnComplete): the booking's run,
// appended to st under lim's Kept and MaxAge (a completion is not counted
// against the rate, which bounds what keys post: bookings are bounded by
// the resource). A run already recorded under the booking's id, with the
// same values or not, or one past its age is left as it is: the completion
// goes on.
func RecordCompleted(st Store, now func() time.Time, lim Limits) func(ctx context.Context, b booking.Booking) error {
	if now == nil {
		now = time.Now
	}
	lim.PerHour = 0
	return func(ctx context.Context, b booking.Booking) error {
		r, ok := FromBooking(b, now().UTC())
		if !ok || lim.tooOld(r) != nil {
			return nil
		}
		if _, _, err := st.Append(ctx, r, lim); err != nil && slotfare.KindOf(err) != slotfare.Conflict {
			return err
		}
		return nil
	}
}
