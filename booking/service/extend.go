package service

import (
	"context"
	"fmt"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/control"
	"slotfare/ledger"
)

// ExtensionError is the refusal of an extension whose added time does not
// fit: the nodes and interval in the way, and MaxEnd, the latest end the
// booking could be extended to now (its own end when none fits). The api
// shows MaxEnd as the problem's max_end.
type ExtensionError struct {
	ResourceID string
	Nodes      int
	From, To   time.Time
	MaxEnd     time.Time
}

func (e *ExtensionError) Error() string {
	return fmt.Sprintf("%d nodes over [%s, %s) do not fit on %s in this fare class; the longest extension that fits ends at %s (max_end)",
		e.Nodes, e.From.Format(time.RFC3339), e.To.Format(time.RFC3339), e.ResourceID, e.MaxEnd.Format(time.RFC3339))
}

// running reports whether booking b has started at now, its user there: it
// is active, or committed, checked in and past its start (the tick that
// makes it active has not run yet). A change of it is an extension.
func running(b booking.Booking, now time.Time) bool {
	return b.Status == booking.Active || (b.Status == booking.Committed && b.CheckedIn && !now.Before(b.Start))
}

// ended reports whether b ran and is over: an extension of it is refused
// naming end.
func ended(b booking.Booking) bool {
	return b.Status == booking.Completed || b.Status == booking.Terminated
}

// extensionEnd checks a change of running booking b: only a later end, and
// answers it. The same end as now is b's own (a retried extension).
func (s *Service) extensionEnd(op slotfare.Op, b booking.Booking, req booking.ModifyRequest, now time.Time) (time.Time, error) {
	if ended(b) || !now.Before(b.End) {
		return time.Time{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("end"),
			fmt.Sprintf("the booking ended at %s; an ended booking cannot be extended", b.End.UTC().Format(time.RFC3339)))
	}
	var errs []error
	if req.Start != nil && !req.Start.Equal(b.Start) {
		errs = append(errs, slotfare.Errorf(op, "start", "the booking has started; its start cannot move (give only a later end to extend it)"))
	}
	if req.Nodes != nil && *req.Nodes != b.Nodes {
		errs = append(errs, slotfare.Errorf(op, "nodes", "the booking has started; it keeps its %d nodes (give only a later end to extend it)", b.Nodes))
	}
	if req.End == nil {
		errs = append(errs, slotfare.Errorf(op, "end", "required: a started booking changes only by a later end (an extension)"))
	}
	if err := slotfare.Join(errs...); err != nil {
		return time.Time{}, err
	}
	end := req.End.UTC()
	switch {
	case end.Nanosecond() != 0:
		return time.Time{}, slotfare.Errorf(op, "end", "must be a whole second")
	case end.Before(b.End):
		return time.Time{}, slotfare.Errorf(op, "end", "a started booking cannot be shortened: end must be after its end %s", b.End.UTC().Format(time.RFC3339))
	case end.Sub(b.Start) > maxBookingSeconds*time.Second:
		return time.Time{}, slotfare.Errorf(op, "end", "a booking lasts at most %d seconds", maxBookingSeconds)
	case end.After(now.Add(time.Duration(s.cfg.BookAheadSeconds) * time.Second)):
		return time.Time{}, slotfare.Errorf(op, "end", "is beyond the book-ahead horizon of %d seconds", s.cfg.BookAheadSeconds)
	}
	return end, nil
}

// extend moves running booking e's end to end: the time added is priced
// in the booking's class (base fare and, where the resource has a queue
// snapshot, the delay premium), admitted on the inventory and billed, in
// one step with its record (records.Guarded's ReplaceApply), as any change. Refused with an
// ExtensionError (max_end) when the added time does not fit. The caller
// holds e.mu.
func (s *Service) extend(ctx context.Context, op slotfare.Op, e *entry, end, now time.Time) (booking.Booking, error) {
	rec := e.rec
	b := rec.Booking
	if end.Equal(b.End) {
		return b, nil
	}
	r := e.res
	r.mu.Lock()
	defer r.mu.Unlock()
	_, class, ok := r.classIndex(b.FareClass)
	if !ok {
		return booking.Booking{}, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("fare class %q is no longer sold", b.FareClass))
	}
	if r.rc.Currency != b.Price.Currency {
		return booking.Booking{}, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("resource %s now prices in %s; this booking was sold in %s and is extended only in it",
			r.id, r.rc.Currency, b.Price.Currency))
	}
	if err := r.coversChange(op, "end", class, b.End, end); err != nil {
		return booking.Booking{}, err
	}
	added, ok, err := s.price(r.rate, class, r.rc.BaseCost, r.rc.Currency, r.pricer, r.queueNow, b.Nodes, b.End, end, now)
	if err != nil {
		return booking.Booking{}, slotfare.E(op, err)
	}
	if !ok {
		return booking.Booking{}, slotfare.E(op, slotfare.NoCapacity, slotfare.Field("end"), "the resource's queue snapshot cannot take this extension")
	}
	if err := s.billable(op, added); err != nil {
		return booking.Booking{}, slotfare.E(op, slotfare.Field("end"), err)
	}
	money, err := s.moneyOf(ctx, b.ID)
	if err != nil {
		return booking.Booking{}, err
	}
	post, err := money.Extension(b.ID, added.Total, ledger.Currency(added.Currency), end, now)
	if err != nil {
		return booking.Booking{}, slotfare.E(op, err)
	}
	if rec.Orig == nil {
		rec.Orig = &booking.Terms{Start: b.Start, End: b.End, Nodes: b.Nodes, Price: b.Price}
	}
	rec.Booking.End, rec.Booking.UpdatedAt = end, stamp(now)
	rec.Booking.Price.Base = b.Price.Base.Add(added.Base)
	rec.Booking.Price.DelayPremium = b.Price.DelayPremium.Add(added.DelayPremium)
	rec.Booking.Price.Total = b.Price.Total.Add(added.Total)
	var refused error
	if err := s.applyWith(ctx, op, []change{{e, rec, b.Status}}, []ledger.Posting{post}, money, r.replaceWith(ctx, op, &refused)); err != nil {
		if slotfare.KindOf(refused) == slotfare.NoCapacity {
			return booking.Booking{}, s.extensionRefused(ctx, op, e, b, end, refused)
		}
		if refused != nil {
			return booking.Booking{}, slotfare.E(op, refused)
		}
		return booking.Booking{}, err
	}
	r.observe(control.Event{Kind: control.EventModified, BookingID: b.ID, Class: b.FareClass, Nodes: b.Nodes, Start: b.Start, End: end, At: now})
	return rec.Booking, nil
}

// extensionRefused is the NoCapacity of an extension of b to end that did
// not fit, with the latest end that would (maxEnd). The caller holds r.mu.
func (s *Service) extensionRefused(ctx context.Context, op slotfare.Op, e *entry, b booking.Booking, end time.Time, refused error) error {
	limit := end.Unix()
	maxEnd, err := s.maxEnd(ctx, e, b, limit)
	if err != nil {
		return slotfare.E(op, slotfare.NoCapacity, slotfare.Field("end"), refused)
	}
	return slotfare.E(op, slotfare.NoCapacity, slotfare.Field("end"),
		&ExtensionError{ResourceID: b.ResourceID, Nodes: b.Nodes, From: b.End.UTC(), To: end.UTC(), MaxEnd: time.Unix(maxEnd, 0).UTC()})
}

// maxEnd is the latest end, up to limit, that booking b (held over its
// interval on every group it occupies) could be extended to now: the first
// instant from its end where some group has fewer than its nodes free. The
// caller holds r.mu.
func (s *Service) maxEnd(ctx context.Context, e *entry, b booking.Booking, limit int64) (int64, error) {
	r := e.res
	from, best := b.End.Unix(), limit
	for g := 0; g < min(e.groups, r.groups); g++ {
		steps, err := s.inv.Profile(ctx, r.id, g, from, limit)
		if err != nil {
			return 0, err
		}
		for _, st := range steps {
			if st.Free < b.Nodes {
				best = min(best, max(st.Start, from))
				break
			}
		}
	}
	return best, nil
}
