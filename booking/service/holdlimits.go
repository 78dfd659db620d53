package service

import (
	"fmt"
	"sort"
	"time"

	"slotfare"
	"slotfare/booking"
)

// Hold limits. A hold is free and sets capacity aside until it expires, so
// without a bound one account could hold a whole resource over the whole
// horizon and renew it every hold_seconds (issue 9, #9). Each resource
// bounds what one account may hold on it at once: how many holds, and how
// many node-seconds ((end - start) x nodes, summed). Only holds count: a
// committed booking is paid for, and an expired, cancelled or rejected hold
// holds nothing. Offers hold nothing either and are not limited.
//
// What an account holds is never a counter kept beside the bookings: it is
// derived, each time, from the resource's live bookings (r.live: the ones
// on its calendars) that are held by the account and not past their expiry,
// under the resource's lock, in the same critical section that admits the
// new hold. So concurrent holds of one account cannot together pass the
// limit, and after a restart the count is what the stored bookings say.

// HoldLimitError says which hold limit a hold would pass: the resource, the
// limit's name ("max_holds" or "max_held_node_seconds"), its value, what the
// account holds there now, what the hold asked for, and in how many seconds
// enough of the account's holds expire for it to fit (0: never, the hold
// alone is larger than the limit). The api shows it in the problem body and
// the Retry-After header.
type HoldLimitError struct {
	ResourceID string
	Limit      string
	Max        int64
	Held       int64
	Requested  int64
	RetryAfter int64
}

func (e *HoldLimitError) Error() string {
	unit := "holds"
	if e.Limit == "max_held_node_seconds" {
		unit = "node-seconds"
	}
	if e.RetryAfter == 0 {
		return fmt.Sprintf("this hold is %d %s, more than one account may hold on %s at once (hold_limits.%s = %d): hold fewer nodes or a shorter interval",
			e.Requested, unit, e.ResourceID, e.Limit, e.Max)
	}
	return fmt.Sprintf("the account holds %d %s on %s and asks for %d more; hold_limits.%s is %d: commit or cancel a hold, or retry in %d s when enough of them have expired",
		e.Held, unit, e.ResourceID, e.Requested, e.Limit, e.Max, e.RetryAfter)
}

// holdsOf lists the account's holds on r that count now: live (on the
// calendars), held, and not past their expiry. It prunes the index of
// entries that stopped counting. The caller holds r.mu.
func (r *resource) holdsOf(account string, now time.Time) []*entry {
	if r.heldBy == nil {
		// First use since the resource was made (on Open, or created by a
		// PUT): index the holds among the live bookings, as loaded.
		r.heldBy = map[string]map[string]*entry{}
		for id, e := range r.live {
			if b := e.booking(); b.Status == booking.Held {
				r.indexHold(b.AccountID, id, e)
			}
		}
	}
	var out []*entry
	for id, e := range r.heldBy[account] {
		b := e.booking()
		if r.live[id] != e || b.Status != booking.Held {
			delete(r.heldBy[account], id) // it never becomes held again
			continue
		}
		if b.HoldExpiresAt != nil && !now.Before(*b.HoldExpiresAt) {
			continue // expired, until Tick says so
		}
		out = append(out, e)
	}
	if len(r.heldBy[account]) == 0 {
		delete(r.heldBy, account)
	}
	return out
}

func (r *resource) indexHold(account, id string, e *entry) {
	m := r.heldBy[account]
	if m == nil {
		m = map[string]*entry{}
		r.heldBy[account] = m
	}
	m[id] = e
}

// checkHoldLimits refuses a hold of nodes over [start, end) by account that
// would pass one of r's hold limits at now: LimitExceeded (with when it
// would fit), or Invalid when the hold alone is larger than the
// node-seconds limit. The caller holds r.mu.
func (r *resource) checkHoldLimits(account string, start, end time.Time, nodes int, now time.Time) error {
	const op = "booking.holdLimits"
	lim := r.rc.HoldLimits.Effective(r.rc.Nodes)
	want := int64(nodes) * int64(end.Sub(start)/time.Second)
	if want > lim.MaxHeldNodeSeconds {
		return slotfare.E(op, slotfare.Invalid, slotfare.Field("nodes"), &HoldLimitError{ResourceID: r.id,
			Limit: "max_held_node_seconds", Max: lim.MaxHeldNodeSeconds, Requested: want})
	}
	holds := r.holdsOf(account, now)
	var used int64
	for _, e := range holds {
		b := e.booking()
		used += int64(b.Nodes) * int64(b.End.Sub(b.Start)/time.Second)
	}
	overCount := len(holds)+1 > lim.MaxHolds
	overSeconds := used+want > lim.MaxHeldNodeSeconds
	if !overCount && !overSeconds {
		return nil
	}
	// When would it fit? Holds expire earliest first; wait for enough of
	// them to leave both limits room for this one.
	sort.Slice(holds, func(i, j int) bool { return holdExpiry(holds[i]).Before(holdExpiry(holds[j])) })
	n, left := len(holds), used
	var at time.Time
	for _, e := range holds {
		if n+1 <= lim.MaxHolds && left+want <= lim.MaxHeldNodeSeconds {
			break
		}
		b := e.booking()
		n, left, at = n-1, left-int64(b.Nodes)*int64(b.End.Sub(b.Start)/time.Second), holdExpiry(e)
	}
	retry := int64(at.Sub(now)+time.Second-1) / int64(time.Second) // rounded up
	retry = max(retry, 1)
	hle := &HoldLimitError{ResourceID: r.id, Limit: "max_holds", Max: int64(lim.MaxHolds), Held: int64(len(holds)), Requested: 1, RetryAfter: retry}
	if !overCount {
		hle.Limit, hle.Max, hle.Held, hle.Requested = "max_held_node_seconds", lim.MaxHeldNodeSeconds, used, want
	}
	return slotfare.E(op, slotfare.LimitExceeded, slotfare.Field("hold_limits."+hle.Limit), hle)
}

// holdExpiry is when a held entry's hold expires (a hold always has an
// expiry; one without would never expire).
func holdExpiry(e *entry) time.Time {
	if b := e.booking(); b.HoldExpiresAt != nil {
		return *b.HoldExpiresAt
	}
	return time.Unix(1<<40, 0)
}

// admitHold admits a new hold e of account (class index k, nodes over
// [start, end)) if the account's hold limits on r leave room for it and it
// fits the calendars, and indexes it as the account's hold: the limits are
// checked and the hold taken in one critical section. The caller holds
// r.mu and puts e in r.live when this succeeds.
func (r *resource) admitHold(e *entry, account string, k int, start, end time.Time, nodes int, now time.Time) error {
	if err := r.checkHoldLimits(account, start, end, nodes, now); err != nil {
		return err
	}
	if err := r.admitEntry(e, k, start.Unix(), end.Unix(), nodes); err != nil {
		return err
	}
	r.indexHold(account, e.view.Load().ID, e)
	return nil
}
