package service

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/events"
)

// EventQuery selects a page of the event log: After is a next_cursor of
// the same Types and role ("" from the oldest event kept); Types are the
// event types wanted (none: every type the role may see); Limit 0 is
// DefaultLimit.
type EventQuery struct {
	After string
	Types []string
	Limit int
}

// roleEvents says which event types a role may read: providers what
// happens on their resources, billing what happens to money and the
// bookings it is for. Users read none (their bookings answer them).
func roleEvents(r booking.Role, typ string) bool {
	switch r {
	case booking.RoleProvider:
		return typ != events.InvoiceUpdated
	case booking.RoleBilling:
		return typ != events.LimitsPublished
	}
	return false
}

// eventStreams are the streams of the log: every resource's (retired
// ones too: their events stay readable) and the one of no resource.
func (s *Service) eventStreams() []string {
	s.mu.RLock()
	out := make([]string, 0, len(s.resources)+1)
	for id := range s.resources {
		out = append(out, id)
	}
	s.mu.RUnlock()
	sort.Strings(out)
	return append(out, "")
}

// Events pages through the event log (provider and billing), oldest first,
// keeping the events of q.Types the caller's role may see. next_cursor is
// always set: a reader at the end keeps it and asks again later. A cursor
// of another type filter or role is Invalid naming "after".
func (s *Service) Events(ctx context.Context, p booking.Principal, q EventQuery) (booking.Page[events.Event], error) {
	const op slotfare.Op = "service.Events"
	var out booking.Page[events.Event]
	if err := needRole(op, p, booking.RoleProvider, booking.RoleBilling); err != nil {
		return out, err
	}
	if len(q.Types) > 0 {
		if err := events.CheckTypes(op, "type", q.Types); err != nil {
			return out, err
		}
	}
	limit := q.Limit
	if limit == 0 {
		limit = booking.DefaultLimit
	}
	if limit < 1 || limit > booking.MaxLimit {
		return out, slotfare.Errorf(op, "limit", "must be in 1..%d, got %d", booking.MaxLimit, q.Limit)
	}
	types := slices.Clone(q.Types)
	slices.Sort(types)
	filter := string(p.Role) + "|" + strings.Join(types, ",")
	cur, err := events.DecodeCursor(op, filter, q.After)
	if err != nil {
		return out, err
	}
	want := func(t string) bool { return roleEvents(p.Role, t) && (len(types) == 0 || events.Matches(types, t)) }
	streams := s.eventStreams()
	for len(out.Data) < limit {
		page, err := s.records.ReadEvents(ctx, streams, cur, limit)
		if err != nil {
			return booking.Page[events.Event]{}, slotfare.E(op, slotfare.Unavailable, err)
		}
		for _, l := range page {
			if len(out.Data) == limit {
				out.HasMore = true
				break
			}
			cur = cur.Advance(l)
			if want(l.Event.Type) {
				out.Data = append(out.Data, l.Event)
			}
		}
		if len(page) < limit || out.HasMore {
			break
		}
	}
	// A page filled to its limit may have more after it.
	out.HasMore = out.HasMore || len(out.Data) == limit
	out.NextCursor = events.EncodeCursor(filter, cur)
	return out, nil
}

// EventsAs is Events for p as webhooks.Source reads it: the events of the
// page and the cursor after them.
func (s *Service) EventsAs(ctx context.Context, p booking.Principal, after string, types []string, limit int) ([]events.Event, string, error) {
	page, err := s.Events(ctx, p, EventQuery{After: after, Types: types, Limit: limit})
	return page.Data, page.NextCursor, err
}

// AppendEvents adds events of no resource (a webhook disabled) to the log.
func (s *Service) AppendEvents(ctx context.Context, evs []events.Event) error {
	return s.records.AppendEvents(ctx, "", evs)
}

// HoldsLease takes lease name for this replica at now, or renews it, for
// ttl: true while this replica holds it (webhook delivery runs on one
// replica at a time).
func (s *Service) HoldsLease(ctx context.Context, name string, ttl time.Duration, now time.Time) (bool, error) {
	_, ok, err := s.ports.Lease.Acquire(ctx, name, s.holder, ttl, now)
	return ok, err
}
