package records

import (
	"context"
	"sort"

	"slotfare"
)

// ChangesKept is how many bookings a resource's change log keeps, by
// default: the newest change of each. The replica holding a resource's
// ticker lease reads the log every minute; a log trimmed past its cursor
// makes it read the whole history once (ChangePage.Lost), so the log need
// only hold a minute or two of changes. 65,536 bookings are some 5 MB on
// Redis a resource.
const ChangesKept = 1 << 16

// ChangePage is a page of a resource's change log (Port.Changes).
type ChangePage struct {
	// Bookings are the bookings changed after the cursor read after, in
	// the order of their newest change, each once with its record as
	// stored now.
	Bookings []Stored
	// Next is the cursor to read after next: the newest change the page
	// lists (the cursor read after when it lists none).
	Next int64
	// More is true when the log may hold changes after Next.
	More bool
	// Lost is true when the log no longer holds every change after the
	// cursor read after (it was trimmed past it, or the log is not the one
	// the cursor was taken from): the reader must read the history again.
	Lost bool
}

// Changes are what a Port keeps of its writes so that a reader follows a
// resource's bookings without reading its whole history again: every write
// that changes bookings adds them to their resource's change log, in the
// same atomic step, each at a sequence number (its cursor) higher than any
// before on the resource.
type Changes interface {
	// ChangeCursor is the cursor of resource's newest change (0 for none):
	// a reader that takes it, then reads the whole history, then reads the
	// changes after it (Changes) misses no change.
	ChangeCursor(ctx context.Context, resource string) (int64, error)
	// Changes pages through the bookings on resource changed after cursor
	// after, at most limit of them (ChangePage).
	Changes(ctx context.Context, resource string, after int64, limit int) (ChangePage, error)
	// KeepChanges sets how many bookings each resource's change log keeps
	// (ChangesKept until then); a log holding more is trimmed, its oldest
	// changes first.
	KeepChanges(n int)
}

// CheckChanges validates a Changes call before any store sees it.
func CheckChanges(resource string, after int64, limit int) error {
	const op slotfare.Op = "records.Changes"
	switch {
	case resource == "":
		return slotfare.Errorf(op, "resource", "required")
	case after < 0:
		return slotfare.Errorf(op, "after", "a cursor is never negative, got %d", after)
	case limit < 1:
		return slotfare.Errorf(op, "limit", "must be positive, got %d", limit)
	}
	return nil
}

// ChangeLog is one resource's change log in a process's memory (Memory,
// and the embedded port, whose cursors live no longer than the process).
// The zero value is an empty log; its user guards it.
type ChangeLog struct {
	seq, floor int64 // the newest change, the newest trimmed
	// order are the changes oldest first; an entry whose booking changed
	// again since (latest) is stale, dropped when the log is compacted.
	order  []loggedChange
	latest map[string]int64
}

type loggedChange struct {
	seq int64
	id  string
}

// Add logs a change of booking id; keep is how many bookings the log
// keeps (ChangesKept when not positive).
func (l *ChangeLog) Add(id string, keep int) {
	if l.latest == nil {
		l.latest = map[string]int64{}
	}
	l.seq++
	l.order = append(l.order, loggedChange{l.seq, id})
	l.latest[id] = l.seq
	if keep < 1 {
		keep = ChangesKept
	}
	if len(l.order) > 2*keep || len(l.latest) > keep+keep/16 {
		l.compact(keep)
	}
}

// compact drops the stale entries, then the oldest bookings beyond keep.
func (l *ChangeLog) compact(keep int) {
	live := l.order[:0]
	for _, c := range l.order {
		if l.latest[c.id] == c.seq {
			live = append(live, c)
		}
	}
	if cut := len(live) - keep; cut > 0 {
		for _, c := range live[:cut] {
			delete(l.latest, c.id)
		}
		l.floor = live[cut-1].seq
		live = live[cut:]
	}
	l.order = append([]loggedChange(nil), live...)
}

// Cursor is the newest change's cursor.
func (l *ChangeLog) Cursor() int64 { return l.seq }

// Page are the ids of at most limit bookings changed after after, in the
// order of their newest change, and ChangePage's Next, More and Lost.
func (l *ChangeLog) Page(after int64, limit int) (ids []string, next int64, more, lost bool) {
	if after < l.floor || after > l.seq {
		return nil, after, false, true
	}
	next = after
	i := sort.Search(len(l.order), func(i int) bool { return l.order[i].seq > after })
	for ; i < len(l.order) && len(ids) < limit; i++ {
		if c := l.order[i]; l.latest[c.id] == c.seq {
			ids, next = append(ids, c.id), c.seq
		}
	}
	return ids, next, i < len(l.order), false
}
