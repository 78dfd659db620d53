package calendar

// Tree is the default calendar: continuous time (no slot rounding, no
// book-ahead limit). It keeps the free capacity (capacity minus reserved
// nodes) as a step function of time.
type Tree struct {
	free   stepFn // capacity minus reserved nodes
	cap    stepFn // capacity
	maxCap int
	res    map[string]Reservation
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
		res:    make(map[string]Reservation),
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
	return c.fits(start, end, nodes), nil
}

func (c *Tree) fits(start, end int64, nodes int) bool {
	f := &c.free
	i := f.find(start)
	if f.v[i] < nodes {
		return false
	}
	for k := i + 1; k < len(f.t) && f.t[k] < end; k++ {
		if f.v[k] < nodes {
			return false
		}
	}
	return true
}

// Add implements Calendar.
func (c *Tree) Add(r Reservation) error {
	const op = "calendar.Add"
	if err := checkReservation(op, r, c.maxCap); err != nil {
		return err
	}
	if _, dup := c.res[r.ID]; dup {
		return errDuplicate(op, r.ID)
	}
	if !c.fits(r.Start, r.End, r.Nodes) {
		return errNoCapacity(op)
	}
	c.free.add(r.Start, r.End, -r.Nodes)
	c.res[r.ID] = r
	return nil
}

// Delete implements Calendar.
func (c *Tree) Delete(id string) (Reservation, error) {
	r, ok := c.res[id]
	if !ok {
		return Reservation{}, errNotFound("calendar.Delete", id)
	}
	delete(c.res, id)
	c.free.add(r.Start, r.End, r.Nodes)
	return r, nil
}

// Get implements Calendar.
func (c *Tree) Get(id string) (Reservation, bool) {
	r, ok := c.res[id]
	return r, ok
}

// Len implements Calendar.
func (c *Tree) Len() int { return len(c.res) }

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
	for ; k < len(f.t); k++ {
		if f.t[k] >= t+duration {
			break
		}
		if f.v[k] < nodes {
			if k+1 == len(f.t) {
				return 0, false, nil
			}
			t = f.t[k+1]
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
	for k := f.find(from); k < len(f.t) && f.t[k] < to; k++ {
		out = appendStep(out, max(f.t[k], from), min(f.end(k), to), f.v[k])
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
	for k := cp.find(from); k < len(cp.t) && cp.t[k] < to; k++ {
		c.free.add(max(cp.t[k], from), min(cp.end(k), to), nodes-cp.v[k])
	}
	cp.set(from, to, nodes)
	c.maxCap = cp.max()
	return nil
}

// Capacity implements Calendar.
func (c *Tree) Capacity(at int64) int { return c.cap.at(at) }

// MaxCapacity implements Calendar.
func (c *Tree) MaxCapacity() int { return c.maxCap }
