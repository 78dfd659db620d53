package calendar

import "slotfare"

// FreeList is Schneider and Linnert's time-exclusive list of free blocks
// (seed 000, Sec. 5, Fig. 2 left and Fig. 3): a linked list of blocks, each
// a time range with a constant number of free nodes, ordered by start time,
// never overlapping in time. Adjacent blocks with equal free counts are
// joined; a block whose free count drops to zero is deleted, so a hole in the
// list means "nothing free". Every operation walks the list from its head,
// as the paper's search does.
//
// One addition to the paper: when a lowered capacity leaves reservations in
// excess, the list keeps a block with a negative count there, so that
// deleting one of those reservations gives back exactly what it held.
type FreeList struct {
	head   *block
	spare  *block // recycled blocks, linked through next
	cap    stepFn
	maxCap int
	res    map[string]Reservation
}

// block is one item of the free list: free nodes over [start, end).
type block struct {
	start, end int64
	free       int
	next       *block
}

// NewFreeList returns an empty free-list calendar with a constant capacity.
func NewFreeList(capacity int) (*FreeList, error) {
	if err := checkCapacity("calendar.NewFreeList", capacity); err != nil {
		return nil, err
	}
	c := &FreeList{cap: newStepFn(capacity), maxCap: capacity, res: make(map[string]Reservation)}
	c.head = c.newBlock(MinTime, MaxTime, capacity, nil)
	return c, nil
}

func (c *FreeList) newBlock(start, end int64, free int, next *block) *block {
	b := c.spare
	if b != nil {
		c.spare = b.next
	} else {
		b = new(block)
	}
	*b = block{start: start, end: end, free: free, next: next}
	return b
}

func (c *FreeList) freeBlock(b *block) {
	*b = block{next: c.spare}
	c.spare = b
}

// Fits implements Calendar. It is Fig. 3 with the start fixed: find the
// block holding start, then follow adjacent successors while each has enough
// nodes, until the request's end is covered.
func (c *FreeList) Fits(start, end int64, nodes int) (bool, error) {
	if err := checkSpan("calendar.Fits", start, end); err != nil {
		return false, err
	}
	if err := checkNodes("calendar.Fits", nodes, c.maxCap); err != nil {
		return false, err
	}
	return c.fits(start, end, nodes), nil
}

func (c *FreeList) fits(start, end int64, nodes int) bool {
	b := c.head
	for b != nil && b.end <= start {
		b = b.next
	}
	if b == nil || b.start > start {
		return false // a hole: nothing free at start
	}
	for {
		if b.free < nodes {
			return false
		}
		if b.end >= end {
			return true
		}
		n := b.next
		if n == nil || n.start != b.end {
			return false // not adjacent: a hole
		}
		b = n
	}
}

// Add implements Calendar.
func (c *FreeList) Add(r Reservation) error {
	const op slotfare.Op = "calendar.Add"
	if err := checkReservation(op, r, c.maxCap); err != nil {
		return err
	}
	if _, dup := c.res[r.ID]; dup {
		return errDuplicate(op, r.ID)
	}
	if !c.fits(r.Start, r.End, r.Nodes) {
		return errNoCapacity(op)
	}
	c.addRange(r.Start, r.End, -r.Nodes)
	c.res[r.ID] = r
	return nil
}

// Delete implements Calendar.
func (c *FreeList) Delete(id string) (Reservation, error) {
	r, ok := c.res[id]
	if !ok {
		return Reservation{}, errNotFound("calendar.Delete", id)
	}
	delete(c.res, id)
	c.addRange(r.Start, r.End, r.Nodes)
	return r, nil
}

// addRange adds d free nodes over [from, to): blocks are split where the
// range starts or ends inside them, holes inside the range become blocks of
// d, blocks that reach zero are deleted and equal neighbours are joined.
func (c *FreeList) addRange(from, to int64, d int) {
	// prev is the last block that ends at or before from (nil: none).
	var prev *block
	b := c.head
	for b != nil && b.end <= from {
		prev, b = b, b.next
	}
	t := from
	for t < to {
		switch {
		case b == nil || b.start >= to:
			// A hole [t, to).
			nb := c.newBlock(t, to, d, b)
			c.link(prev, nb)
			prev, t = nb, to
		case b.start > t:
			// A hole [t, b.start).
			nb := c.newBlock(t, b.start, d, b)
			c.link(prev, nb)
			prev, t = nb, b.start
		default:
			// b holds t; split off what lies before t and after to.
			if b.start < t {
				nb := c.newBlock(t, b.end, b.free, b.next)
				b.end, b.next = t, nb
				prev, b = b, nb
			}
			if b.end > to {
				nb := c.newBlock(to, b.end, b.free, b.next)
				b.end, b.next = to, nb
			}
			b.free += d
			prev, t, b = b, b.end, b.next
		}
	}
	c.tidy(from, to)
}

// link puts nb after prev, or at the head when prev is nil.
func (c *FreeList) link(prev, nb *block) {
	if prev == nil {
		c.head = nb
	} else {
		prev.next = nb
	}
}

// tidy deletes zero blocks and joins equal adjacent blocks around [from, to].
func (c *FreeList) tidy(from, to int64) {
	var prev *block
	b := c.head
	for b != nil && b.end < from {
		prev, b = b, b.next
	}
	for b != nil && b.start <= to {
		n := b.next
		switch {
		case b.free == 0:
			c.link(prev, n)
			c.freeBlock(b)
		case prev != nil && prev.end == b.start && prev.free == b.free:
			prev.end, prev.next = b.end, n
			c.freeBlock(b)
		default:
			prev = b
		}
		b = n
	}
}

// Get implements Calendar.
func (c *FreeList) Get(id string) (Reservation, bool) {
	r, ok := c.res[id]
	return r, ok
}

// Len implements Calendar.
func (c *FreeList) Len() int { return len(c.res) }

// NextFree implements Calendar: Fig. 3 of seed 000. Select a block with
// enough nodes, then collect adjacent successors with enough nodes until the
// duration is covered; when the chain breaks, start again from the next
// block.
func (c *FreeList) NextFree(from, limit, duration int64, nodes int) (int64, bool, error) {
	if err := checkSearch("calendar.NextFree", from, limit, duration, nodes, c.maxCap); err != nil {
		return 0, false, err
	}
	b := c.head
	for b != nil && b.end <= from {
		b = b.next
	}
	for b != nil {
		if b.free < nodes {
			b = b.next
			continue
		}
		t := max(b.start, from)
		if t > limit {
			return 0, false, nil
		}
		last := b
		for last.end < t+duration {
			n := last.next
			if n == nil || n.start != last.end || n.free < nodes {
				break
			}
			last = n
		}
		if last.end >= t+duration {
			return t, true, nil
		}
		b = last.next
	}
	return 0, false, nil
}

// Profile implements Calendar: the blocks over [from, to), holes as 0.
func (c *FreeList) Profile(from, to int64) ([]Step, error) {
	if err := checkSpan("calendar.Profile", from, to); err != nil {
		return nil, err
	}
	var out []Step
	t := from
	for b := c.head; b != nil && t < to; b = b.next {
		if b.end <= t {
			continue
		}
		if b.start > t {
			out = appendStep(out, t, min(b.start, to), 0)
			t = min(b.start, to)
			if t == to {
				break
			}
		}
		out = appendStep(out, t, min(b.end, to), b.free)
		t = min(b.end, to)
	}
	if t < to {
		out = appendStep(out, t, to, 0)
	}
	return out, nil
}

// SetCapacity implements Calendar.
func (c *FreeList) SetCapacity(from, to int64, nodes int) error {
	if err := checkSetCapacity("calendar.SetCapacity", from, to, nodes); err != nil {
		return err
	}
	cp := &c.cap
	for k := cp.find(from); k < len(cp.p) && cp.p[k].t < to; k++ {
		if d := nodes - cp.p[k].v; d != 0 {
			c.addRange(max(cp.p[k].t, from), min(cp.end(k), to), d)
		}
	}
	cp.set(from, to, nodes)
	c.maxCap = cp.max()
	return nil
}

// Capacity implements Calendar.
func (c *FreeList) Capacity(at int64) int { return c.cap.at(at) }

// MaxCapacity implements Calendar.
func (c *FreeList) MaxCapacity() int { return c.maxCap }

// Replace implements Calendar.
func (c *FreeList) Replace(id string, r Reservation) error { return replace(c, id, r) }

// insert stores r without checking capacity (Replace checked the pieces
// that grow); a block may go negative where reservations exceed capacity.
func (c *FreeList) insert(r Reservation) {
	c.addRange(r.Start, r.End, -r.Nodes)
	c.res[r.ID] = r
}

// within implements withinner: no block with a negative count overlaps
// [start, end) (a hole is zero free, which is within).
func (c *FreeList) within(start, end int64) bool {
	for b := c.head; b != nil && b.start < end; b = b.next {
		if b.end > start && b.free < 0 {
			return false
		}
	}
	return true
}
