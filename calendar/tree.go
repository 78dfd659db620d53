package calendar

// Tree is the default calendar: continuous time (no slot rounding, no
// book-ahead limit). It keeps the free capacity (capacity minus reserved
// nodes) as a step function of time.
type Tree struct {
	free   stepFn // capacity minus reserved nodes
	cap    stepFn // capacity
	maxCap int
	res    idTable
}

// NewTree returns an empty tree calendar with a constant capacity.
func NewTree(capacity int) (*Tree, error) {
	if err := checkCapacity("calendar.NewTree", capacity); err != nil {
		return nil, err
	}
	return &Tree{
		free:   newStepFn(capacity),
		cap:    newStepFn(capacity),
		maxCap: capacity,
		res:    newIDTable(),
	}, nil
}

// Fits implements Calendar.
func (c *Tree) Fits(start, end int64, nodes int) (bool, error) {
	if err := checkSpan("calendar.Fits", start, end); err != nil {
		return false, err
	}
	if err := checkNodes("calendar.Fits", nodes, c.maxCap); err != nil {
		return false, err
	}
	ok, _, _ := c.fits(start, end, nodes)
	return ok, nil
}

// fits reports whether nodes fit over [start, end); when they do, i is the
// step holding start and j the first breakpoint at or after end, which Add
// reuses to update without searching again.
func (c *Tree) fits(start, end int64, nodes int) (ok bool, i, j int) {
	f := &c.free
	i = f.find(start)
	p := f.p
	if p[i].v < nodes {
		return false, 0, 0
	}
	j = i + 1
	for ; j < len(p) && p[j].t < end; j++ {
		if p[j].v < nodes {
			return false, 0, 0
		}
	}
	return true, i, j
}

// Add implements Calendar.
func (c *Tree) Add(r Reservation) error {
	const op = "calendar.Add"
	if err := checkReservation(op, r, c.maxCap); err != nil {
		return err
	}
	h := c.res.hash(r.ID)
	slot, dup := c.res.find(r.ID, h)
	if dup {
		return errDuplicate(op, r.ID)
	}
	ok, i, j := c.fits(r.Start, r.End, r.Nodes)
	if !ok {
		return errNoCapacity(op)
	}
	c.free.addIdx(i, j, r.Start, r.End, -r.Nodes)
	c.res.insert(slot, h, r)
	return nil
}

// Delete implements Calendar.
func (c *Tree) Delete(id string) (Reservation, error) {
	slot, ok := c.res.find(id, c.res.hash(id))
	if !ok {
		return Reservation{}, errNotFound("calendar.Delete", id)
	}
	r := c.res.slots[slot].r
	c.res.removeAt(slot)
	c.free.add(r.Start, r.End, r.Nodes)
	return r, nil
}

// Get implements Calendar.
func (c *Tree) Get(id string) (Reservation, bool) { return c.res.get(id) }

// Len implements Calendar.
func (c *Tree) Len() int { return c.res.n }

// NextFree implements Calendar. It walks the free steps from the step that
// holds from; a step with too few nodes moves the candidate start to the end
// of that step, so every step is looked at once.
func (c *Tree) NextFree(from, limit, duration int64, nodes int) (int64, bool, error) {
	if err := checkSearch("calendar.NextFree", from, limit, duration, nodes, c.maxCap); err != nil {
		return 0, false, err
	}
	f := &c.free
	t := from
	k := f.find(t)
	for ; k < len(f.p); k++ {
		if f.p[k].t >= t+duration {
			break
		}
		if f.p[k].v < nodes {
			if k+1 == len(f.p) {
				return 0, false, nil
			}
			t = f.p[k+1].t
			if t > limit {
				return 0, false, nil
			}
		}
	}
	return t, true, nil
}

// Profile implements Calendar.
func (c *Tree) Profile(from, to int64) ([]Step, error) {
	if err := checkSpan("calendar.Profile", from, to); err != nil {
		return nil, err
	}
	f := &c.free
	var out []Step
	for k := f.find(from); k < len(f.p) && f.p[k].t < to; k++ {
		out = appendStep(out, max(f.p[k].t, from), min(f.end(k), to), f.p[k].v)
	}
	return out, nil
}

// appendStep appends [start, end) with free nodes (clamped at zero), merging
// it into the last step when the counts are equal.
func appendStep(out []Step, start, end int64, free int) []Step {
	free = max(free, 0)
	if n := len(out); n > 0 && out[n-1].Free == free && out[n-1].End == start {
		out[n-1].End = end
		return out
	}
	return append(out, Step{Start: start, End: end, Free: free})
}

// SetCapacity implements Calendar.
func (c *Tree) SetCapacity(from, to int64, nodes int) error {
	if err := checkSetCapacity("calendar.SetCapacity", from, to, nodes); err != nil {
		return err
	}
	// The free function moves by (new - old) on each old capacity step.
	cp := &c.cap
	for k := cp.find(from); k < len(cp.p) && cp.p[k].t < to; k++ {
		c.free.add(max(cp.p[k].t, from), min(cp.end(k), to), nodes-cp.p[k].v)
	}
	cp.set(from, to, nodes)
	c.maxCap = cp.max()
	return nil
}

// Capacity implements Calendar.
func (c *Tree) Capacity(at int64) int { return c.cap.at(at) }

// MaxCapacity implements Calendar.
func (c *Tree) MaxCapacity() int { return c.maxCap }
