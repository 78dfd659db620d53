package coreserve

import (
	"sort"
	"time"

	"slotfare/booking"
)

const (
	// settleBatch is the most co-reservations one tick settles: a backlog
	// (many holds lapsing at once) is worked off over the next ticks.
	settleBatch = 100
	// claimFor is how long a co-reservation a tick took from the due index
	// stays out of other brokers' ticks: the time to settle it, and the
	// time after which it is tried again if this broker could not.
	claimFor = 15 * time.Second
	// heldRecheck is when a held co-reservation none of whose parts can
	// lapse by time (each committed on its own) is looked at again.
	heldRecheck = time.Hour
)

// DueMillis is t's place in a due index: milliseconds since the epoch,
// rounded up, so that a tick at or after that millisecond is at or after
// t. A zero t (an unsettled record written before records had a due time)
// is 0: due at once.
func DueMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return max(ms, 0)
}

// lapseAt is when part bk can no longer be committed if nothing else
// happens to it (lapsed's rules): a hold at its hold's expiry or just after
// its start, whichever is first; never for a committed part (ok false);
// at once for any other (zero time).
func lapseAt(bk booking.Booking) (at time.Time, ok bool) {
	switch bk.Status {
	case booking.Committed:
		return time.Time{}, false
	case booking.Held:
		at = bk.Start.Add(time.Nanosecond)
		if bk.HoldExpiresAt != nil && bk.HoldExpiresAt.Before(at) {
			at = *bk.HoldExpiresAt
		}
		return at, true
	}
	return time.Time{}, true
}

// dueAt is when a record in status, with parts bks, written at now, is due
// (Record.DueAt): held, when its first part lapses; committing or
// cancelling, when the broker at it is presumed dead (RecoverAfter);
// settled, never (zero).
func (b *Broker) dueAt(status Status, bks []booking.Booking, now time.Time) time.Time {
	switch status {
	case Held:
		var first time.Time
		found := false
		for _, bk := range bks {
			at, ok := lapseAt(bk)
			if !ok {
				continue
			}
			if at.IsZero() {
				return now
			}
			if !found || at.Before(first) {
				first, found = at, true
			}
		}
		if !found {
			return now.Add(heldRecheck)
		}
		return first
	case Committing, Cancelling:
		return now.Add(max(b.o.RecoverAfter, 0))
	}
	return time.Time{}
}

// dueEntry is one record in an ordered due index.
type dueEntry struct {
	at int64 // DueMillis
	id string
}

func (e dueEntry) before(o dueEntry) bool {
	return e.at < o.at || e.at == o.at && e.id < o.id
}

// dueIndex is Memory's due index: the unsettled records' ids ordered by
// when they are due.
type dueIndex struct {
	at    map[string]int64
	order []dueEntry
}

func (x *dueIndex) search(e dueEntry) int {
	return sort.Search(len(x.order), func(i int) bool { return !x.order[i].before(e) })
}

// set files id at at, or takes it out of the index when filed is false.
func (x *dueIndex) set(id string, at int64, filed bool) {
	if old, ok := x.at[id]; ok {
		i := x.search(dueEntry{old, id})
		x.order = append(x.order[:i], x.order[i+1:]...)
		delete(x.at, id)
	}
	if !filed {
		return
	}
	e := dueEntry{at, id}
	i := x.search(e)
	x.order = append(x.order, dueEntry{})
	copy(x.order[i+1:], x.order[i:])
	x.order[i] = e
	x.at[id] = at
}

// due is up to limit ids filed at or before now, soonest first.
func (x *dueIndex) due(now int64, limit int) []string {
	var ids []string
	for _, e := range x.order {
		if e.at > now || len(ids) == limit {
			break
		}
		ids = append(ids, e.id)
	}
	return ids
}
