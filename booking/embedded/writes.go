package embedded

import "time"

// recentWrites are the WriteIDs Records applied lately, oldest first. A
// WriteID is there only so that a write sent again (its caller timed out
// waiting for the answer) answers nil; such a retry comes from this
// process (write ids are not kept across a restart) within a request's
// life, so an id is kept while younger than ttl and at most max of them
// are kept, which bounds the set whatever the write rate. A retry that
// comes later is checked again like any write and answers a Conflict:
// its changes replace versions that have moved and its posting ids are
// stored, so it is never applied twice.
type recentWrites struct {
	ttl   time.Duration
	max   int
	now   func() time.Time
	ids   map[string]struct{}
	order []appliedWrite // order[head:] are the ids kept, oldest first
	head  int
}

// appliedWrite is a WriteID and when it was applied.
type appliedWrite struct {
	id string
	at time.Time
}

func newRecentWrites(ttl time.Duration, max int, now func() time.Time) *recentWrites {
	return &recentWrites{ttl: ttl, max: max, now: now, ids: map[string]struct{}{}}
}

// has tells whether id was applied within the window.
func (r *recentWrites) has(id string) bool {
	r.prune(r.now(), 0)
	_, ok := r.ids[id]
	return ok
}

// add remembers id, applied now; it is not in the set (Apply checks has
// and reserves the id while its write is in flight).
func (r *recentWrites) add(id string) {
	now := r.now()
	r.prune(now, 1)
	r.ids[id] = struct{}{}
	r.order = append(r.order, appliedWrite{id, now})
}

// prune forgets the ids older than ttl, and the oldest ones beyond
// max-room, so that room more fit.
func (r *recentWrites) prune(now time.Time, room int) {
	for r.head < len(r.order) {
		w := r.order[r.head]
		if now.Sub(w.at) < r.ttl && len(r.order)-r.head+room <= r.max {
			break
		}
		delete(r.ids, w.id)
		r.order[r.head] = appliedWrite{}
		r.head++
	}
	// Move the kept ids down once the forgotten ones are half the slice,
	// so it neither grows for good nor is copied on every write.
	if r.head > 64 && r.head*2 >= len(r.order) {
		n := copy(r.order, r.order[r.head:])
		clear(r.order[n:])
		r.order = r.order[:n]
		r.head = 0
	}
}

// len is how many ids are kept.
func (r *recentWrites) len() int { return len(r.order) - r.head }
