package calendar

import (
	"slices"

	"slotfare"
)

// Slotted is GarQ, the Grid advance reservation Queue of seed 004 (Ch. 5,
// Sec. 5.3, Alg. 5-7) with unsorted queues: a ring of M buckets, each delta
// long, each keeping rv (the nodes reserved in that slot) and an unsorted
// queue of the reservations that start in it. Time is slotted as in seed 000
// (Sec. 4): a reservation holds every slot it touches, so it is rounded out
// to slot boundaries.
//
// The ring holds the absolute slots [base, base+M) (slot a covers
// [origin+a*delta, origin+(a+1)*delta) and lives in bucket a mod M). The
// window moves forward by itself when a request reaches past it and the
// buckets it would reuse are empty (Sec. 5.3: buckets are reused for the next
// time period); a time before the window, or one that would need a bucket
// still in use, is outside what the ring can hold: Invalid ("start" or
// "end").
type Slotted struct {
	origin, delta int64
	m             int64
	base          int64 // absolute slot held by the first position of the window
	rv            []int32
	capb          []int32    // per-bucket capacity: the least capacity over the slot
	queue         [][]string // per-bucket unsorted queue of ids starting there
	cap           stepFn
	maxCap        int
	res           map[string]Reservation
}

// NewSlotted returns an empty GarQ with a constant capacity: slots buckets of
// width delta, the first starting at origin. The book-ahead it can hold is
// slots*delta.
func NewSlotted(capacity int, origin, delta int64, slots int) (*Slotted, error) {
	const op slotfare.Op = "calendar.NewSlotted"
	if err := checkCapacity(op, capacity); err != nil {
		return nil, err
	}
	if delta < 1 {
		return nil, slotfare.Errorf(op, "delta", "slot width must be positive, got %d", delta)
	}
	if slots < 1 || slots > 1<<26 {
		return nil, slotfare.Errorf(op, "slots", "slots must be in [1, %d], got %d", 1<<26, slots)
	}
	if origin < MinTime/2 || origin > MaxTime/2 || int64(slots) > (MaxTime-origin)/delta {
		return nil, slotfare.Errorf(op, fieldStart, "origin %d with %d slots of %d does not fit in time", origin, slots, delta)
	}
	c := &Slotted{
		origin: origin, delta: delta, m: int64(slots),
		rv:     make([]int32, slots),
		capb:   make([]int32, slots),
		queue:  make([][]string, slots),
		cap:    newStepFn(capacity),
		maxCap: capacity,
		res:    make(map[string]Reservation),
	}
	for i := range c.capb {
		c.capb[i] = int32(capacity)
	}
	return c, nil
}

// slotOf returns the absolute slot holding instant t (t >= origin).
func (c *Slotted) slotOf(t int64) int64 { return (t - c.origin) / c.delta }

// slotsOf returns the absolute slots [a0, a1) an interval touches, or an
// Invalid error when the ring cannot hold them.
func (c *Slotted) slotsOf(op slotfare.Op, start, end int64) (int64, int64, error) {
	if start < c.origin {
		return 0, 0, slotfare.Errorf(op, fieldStart, "start %d is before the calendar's origin %d", start, c.origin)
	}
	a0 := c.slotOf(start)
	a1 := (end - c.origin + c.delta - 1) / c.delta
	if a0 < c.base {
		return 0, 0, slotfare.Errorf(op, fieldStart, "start %d is before the oldest slot held (%d)", start, c.origin+c.base*c.delta)
	}
	if !c.holds(a1) {
		return 0, 0, slotfare.Errorf(op, fieldEnd, "end %d is beyond the book-ahead of %d slots of %d", end, c.m, c.delta)
	}
	return a0, a1, nil
}

// holds reports whether the window can reach slot a1-1: it is inside, or
// every bucket that would have to be reused is empty.
func (c *Slotted) holds(a1 int64) bool {
	if a1-c.base <= c.m {
		return true
	}
	newBase := a1 - c.m
	for a := c.base; a < newBase && a < c.base+c.m; a++ {
		if c.rv[a%c.m] != 0 {
			return false
		}
	}
	return true
}

// advance moves the window so that it reaches slot a1-1; holds(a1) must be
// true. Buckets that come back into use start empty with the capacity of
// their new slot.
func (c *Slotted) advance(a1 int64) {
	if a1-c.base <= c.m {
		return
	}
	newBase := a1 - c.m
	for a := max(c.base+c.m, newBase); a < newBase+c.m; a++ {
		i := a % c.m
		c.rv[i] = 0
		c.queue[i] = c.queue[i][:0]
		c.capb[i] = int32(c.slotCapacity(a))
	}
	c.base = newBase
}

// slotCapacity is the least capacity over absolute slot a.
func (c *Slotted) slotCapacity(a int64) int {
	s := c.origin + a*c.delta
	return c.cap.minOver(s, s+c.delta)
}

// slot returns rv and the capacity of absolute slot a; a slot past the
// window (which holds() allowed) is empty.
func (c *Slotted) slot(a int64) (int32, int32) {
	if a >= c.base+c.m {
		return 0, int32(c.slotCapacity(a))
	}
	i := a % c.m
	return c.rv[i], c.capb[i]
}

// Fits implements Calendar: Alg. 5 (searchReserv).
func (c *Slotted) Fits(start, end int64, nodes int) (bool, error) {
	const op slotfare.Op = "calendar.Fits"
	if err := checkSpan(op, start, end); err != nil {
		return false, err
	}
	if err := checkNodes(op, nodes, c.maxCap); err != nil {
		return false, err
	}
	a0, a1, err := c.slotsOf(op, start, end)
	if err != nil {
		return false, err
	}
	return c.fits(a0, a1, nodes), nil
}

func (c *Slotted) fits(a0, a1 int64, nodes int) bool {
	n := int32(nodes)
	if a1 <= c.base+c.m {
		// The common case: one or two contiguous runs of buckets.
		i, j := a0%c.m, a1%c.m
		if j == 0 {
			j = c.m
		}
		if i < j {
			return fitsRun(c.rv[i:j], c.capb[i:j], n)
		}
		return fitsRun(c.rv[i:], c.capb[i:], n) && fitsRun(c.rv[:j], c.capb[:j], n)
	}
	for a := a0; a < a1; a++ {
		rv, cp := c.slot(a)
		if rv+n > cp {
			return false
		}
	}
	return true
}

func fitsRun(rv, cp []int32, n int32) bool {
	cp = cp[:len(rv)]
	for i, r := range rv {
		if r+n > cp[i] {
			return false
		}
	}
	return true
}

// Add implements Calendar: Alg. 6 (addReserv), after a search.
func (c *Slotted) Add(r Reservation) error {
	const op slotfare.Op = "calendar.Add"
	if err := checkReservation(op, r, c.maxCap); err != nil {
		return err
	}
	a0, a1, err := c.slotsOf(op, r.Start, r.End)
	if err != nil {
		return err
	}
	if _, dup := c.res[r.ID]; dup {
		return errDuplicate(op, r.ID)
	}
	if !c.fits(a0, a1, r.Nodes) {
		return errNoCapacity(op)
	}
	c.advance(a1)
	i := a0 % c.m
	c.queue[i] = append(c.queue[i], r.ID)
	c.addRV(a0, a1, int32(r.Nodes))
	c.res[r.ID] = r
	return nil
}

func (c *Slotted) addRV(a0, a1 int64, n int32) {
	i := a0 % c.m
	for a := a0; a < a1; a++ {
		c.rv[i] += n
		if i++; i == c.m {
			i = 0
		}
	}
}

// Delete implements Calendar: take the reservation out of its start
// bucket's queue and give its nodes back over its slots.
func (c *Slotted) Delete(id string) (Reservation, error) {
	r, ok := c.res[id]
	if !ok {
		return Reservation{}, errNotFound("calendar.Delete", id)
	}
	delete(c.res, id)
	a0 := c.slotOf(r.Start)
	a1 := (r.End - c.origin + c.delta - 1) / c.delta
	i := a0 % c.m
	q := c.queue[i]
	if k := slices.Index(q, id); k >= 0 {
		q[k] = q[len(q)-1]
		c.queue[i] = q[:len(q)-1]
	}
	c.addRV(a0, a1, -int32(r.Nodes))
	return r, nil
}

// Get implements Calendar.
func (c *Slotted) Get(id string) (Reservation, bool) {
	r, ok := c.res[id]
	return r, ok
}

// Len implements Calendar.
func (c *Slotted) Len() int { return len(c.res) }

// NextFree implements Calendar: Alg. 7 (suggestInterval). from itself is
// tried first; after that the candidates are slot boundaries, and the scan
// counts consecutive buckets with enough free nodes until it has as many as
// the duration needs, restarting after each full bucket.
func (c *Slotted) NextFree(from, limit, duration int64, nodes int) (int64, bool, error) {
	const op slotfare.Op = "calendar.NextFree"
	if err := checkSearch(op, from, limit, duration, nodes, c.maxCap); err != nil {
		return 0, false, err
	}
	a0, _, err := c.slotsOf(op, from, from+duration)
	if err != nil {
		return 0, false, err
	}
	if _, _, err := c.slotsOf(op, limit, limit+duration); err != nil {
		return 0, false, err
	}
	a1 := (from + duration - c.origin + c.delta - 1) / c.delta
	if c.fits(a0, a1, nodes) {
		return from, true, nil
	}
	need := (duration + c.delta - 1) / c.delta
	n := int32(nodes)
	start := a0 + 1
	count := int64(0)
	for a := start; ; a++ {
		if c.origin+start*c.delta > limit {
			return 0, false, nil
		}
		if rv, cp := c.slot(a); rv+n > cp {
			start, count = a+1, 0
			continue
		}
		if count++; count >= need {
			return c.origin + start*c.delta, true, nil
		}
	}
}

// Profile implements Calendar: one step per slot, equal neighbours merged.
func (c *Slotted) Profile(from, to int64) ([]Step, error) {
	const op slotfare.Op = "calendar.Profile"
	if err := checkSpan(op, from, to); err != nil {
		return nil, err
	}
	a0, a1, err := c.slotsOf(op, from, to)
	if err != nil {
		return nil, err
	}
	var out []Step
	for a := a0; a < a1; a++ {
		rv, cp := c.slot(a)
		s := c.origin + a*c.delta
		out = appendStep(out, max(s, from), min(s+c.delta, to), int(cp-rv))
	}
	return out, nil
}

// SetCapacity implements Calendar. The capacity function is kept exactly
// (Capacity reads it back); each bucket of the window takes the least
// capacity over its slot.
func (c *Slotted) SetCapacity(from, to int64, nodes int) error {
	if err := checkSetCapacity("calendar.SetCapacity", from, to, nodes); err != nil {
		return err
	}
	c.cap.set(from, to, nodes)
	c.maxCap = c.cap.max()
	lo := max(c.base, (from-c.origin)/c.delta-1)
	for a := lo; a < c.base+c.m; a++ {
		s := c.origin + a*c.delta
		if s >= to {
			break
		}
		c.capb[a%c.m] = int32(c.slotCapacity(a))
	}
	return nil
}

// Capacity implements Calendar.
func (c *Slotted) Capacity(at int64) int { return c.cap.at(at) }

// MaxCapacity implements Calendar.
func (c *Slotted) MaxCapacity() int { return c.maxCap }

// Replace implements Calendar. Its pieces are checked slot by slot, as
// every request here is, so it may refuse a replacement whose growth only
// shares a slot with the old reservation.
func (c *Slotted) Replace(id string, r Reservation) error {
	if _, _, err := c.slotsOf("calendar.Replace", r.Start, r.End); err != nil {
		return err
	}
	return replace(c, id, r)
}

// insert stores r without checking capacity (Replace checked the pieces
// that grow and that the ring holds r).
func (c *Slotted) insert(r Reservation) {
	a0 := c.slotOf(r.Start)
	a1 := (r.End - c.origin + c.delta - 1) / c.delta
	c.advance(a1)
	i := a0 % c.m
	c.queue[i] = append(c.queue[i], r.ID)
	c.addRV(a0, a1, int32(r.Nodes))
	c.res[r.ID] = r
}

// within implements withinner: no slot of [start, end) holds more than its
// capacity; an interval the ring cannot hold holds nothing beyond it.
func (c *Slotted) within(start, end int64) bool {
	a0, a1, err := c.slotsOf("calendar.WithinCapacity", start, end)
	if err != nil {
		return true
	}
	return c.fits(a0, a1, 0)
}
