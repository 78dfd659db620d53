package service

import (
	"fmt"
	"sort"
	"time"

	"slotfare"
	"slotfare/booking/records"
)

// Hold limits. A hold is free and sets capacity aside until it expires, so
// without a bound one account could hold a whole resource over the whole
// horizon and renew it every hold_seconds (issue 9, #9). Each resource
// bounds what one account may hold on it at once: how many holds, and how
// many node-seconds ((end - start) x nodes, summed). Only holds count: a
// committed booking is paid for, and an expired, cancelled or rejected hold
// holds nothing. Offers hold nothing either and are not limited.
//
// What an account holds is counted where the bookings live, not in this
// process: a new hold claims its place on the records port
// (records.HoldClaims) before it is admitted, in one atomic step there that
// counts the account's holds still running, whichever replica took them.
// So concurrent holds of one account, on one replica or several, cannot
// together pass the limit, and after a restart the count is what the
// stored bookings say.

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

// holdClaim is a new hold's claim on account's hold limits on r, or
// Invalid when the hold alone is larger than the node-seconds limit.
func (r *resource) holdClaim(id, account string, start, end, exp time.Time, nodes int, now time.Time) (records.HoldClaim, error) {
	const op slotfare.Op = "service.holdLimits"
	r.mu.Lock()
	lim := r.rc.HoldLimits.Effective(r.rc.Nodes)
	r.mu.Unlock()
	want := int64(nodes) * int64(end.Sub(start)/time.Second)
	if want > lim.MaxHeldNodeSeconds {
		return records.HoldClaim{}, slotfare.E(op, slotfare.Invalid, slotfare.Field("nodes"), &HoldLimitError{ResourceID: r.id,
			Limit: "max_held_node_seconds", Max: lim.MaxHeldNodeSeconds, Requested: want})
	}
	return records.HoldClaim{Resource: r.id, Account: account, BookingID: id, Expires: exp,
		NodeSeconds: want, MaxHolds: lim.MaxHolds, MaxNodeSeconds: lim.MaxHeldNodeSeconds, Now: now}, nil
}

// holdLimitError is the LimitExceeded of claim c refused for the holds
// that stand in its way, with when it would fit.
func (r *resource) holdLimitError(c records.HoldClaim, holds []records.Held) error {
	const op slotfare.Op = "service.holdLimits"
	want, now := c.NodeSeconds, c.Now
	var used int64
	for _, h := range holds {
		used += h.NodeSeconds
	}
	overCount := len(holds)+1 > c.MaxHolds
	// When would it fit? Holds expire earliest first; wait for enough of
	// them to leave both limits room for this one.
	sort.Slice(holds, func(i, j int) bool { return holds[i].Expires.Before(holds[j].Expires) })
	n, left := len(holds), used
	var at time.Time
	for _, h := range holds {
		if n+1 <= c.MaxHolds && left+want <= c.MaxNodeSeconds {
			break
		}
		n, left, at = n-1, left-h.NodeSeconds, h.Expires
	}
	retry := int64(at.Sub(now)+time.Second-1) / int64(time.Second) // rounded up
	retry = max(retry, 1)
	hle := &HoldLimitError{ResourceID: r.id, Limit: "max_holds", Max: int64(c.MaxHolds), Held: int64(len(holds)), Requested: 1, RetryAfter: retry}
	if !overCount {
		hle.Limit, hle.Max, hle.Held, hle.Requested = "max_held_node_seconds", c.MaxNodeSeconds, used, want
	}
	return slotfare.E(op, slotfare.LimitExceeded, slotfare.Field("hold_limits."+hle.Limit), hle)
}
