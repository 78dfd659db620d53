package calendar

import "slotfare"

// growth is one piece of a replacement where the new reservation holds
// more nodes than the old one: Nodes more over [Start, End).
type growth struct {
	Start, End int64
	Nodes      int
}

// growths are the pieces of time where replacing old by r raises the nodes
// held, and by how much: the parts of r outside old hold r.Nodes more, the
// overlap holds r.Nodes - old.Nodes more when that is positive. Only these
// pieces need free capacity; everywhere else the load does not rise.
func growths(old, r Reservation) []growth {
	out := make([]growth, 0, 3)
	if r.Start < old.Start {
		out = append(out, growth{r.Start, min(r.End, old.Start), r.Nodes})
	}
	if r.End > old.End {
		out = append(out, growth{max(r.Start, old.End), r.End, r.Nodes})
	}
	if s, e := max(r.Start, old.Start), min(r.End, old.End); s < e && r.Nodes > old.Nodes {
		out = append(out, growth{s, e, r.Nodes - old.Nodes})
	}
	return out
}

// ReplaceFits reports whether c.Replace(id, r) would store r: whether every
// piece where r holds more nodes than reservation id fits. Nothing changes.
// Callers that replace on several calendars at once check them all first.
func ReplaceFits(c Calendar, id string, r Reservation) (bool, error) {
	const op slotfare.Op = "calendar.Replace"
	// Nodes are bounded by what any calendar takes, not by this one's
	// largest capacity: a reduction of a reservation held above a capacity
	// lowered everywhere still fits.
	if err := checkReservation(op, r, maxNodes); err != nil {
		return false, err
	}
	old, ok := c.Get(id)
	if !ok {
		return false, errNotFound(op, id)
	}
	if r.ID != id {
		if _, dup := c.Get(r.ID); dup {
			return false, errDuplicate(op, r.ID)
		}
	}
	for _, g := range growths(old, r) {
		if g.Nodes > c.MaxCapacity() {
			return false, nil // more than any instant can take
		}
		if ok, err := c.Fits(g.Start, g.End, g.Nodes); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// inserter is a calendar that can store a reservation without the capacity
// check: only Replace uses it, after checking the pieces that grow.
type inserter interface {
	Calendar
	insert(r Reservation)
}

// replace implements Replace for every calendar.
func replace(c inserter, id string, r Reservation) error {
	ok, err := ReplaceFits(c, id, r)
	if err != nil {
		return err
	}
	if !ok {
		return errNoCapacity("calendar.Replace")
	}
	if _, err := c.Delete(id); err != nil {
		return err // cannot happen: ReplaceFits found it
	}
	c.insert(r)
	return nil
}

// withinner is a calendar that can tell whether what it holds exceeds its
// capacity anywhere over an interval.
type withinner interface {
	within(start, end int64) bool
}

// WithinCapacity reports whether what c holds stays within its capacity at
// every instant of [start, end). It is false only where a capacity was
// lowered below what had been reserved: a reservation there still counts,
// but would not be admitted again. Nothing changes.
func WithinCapacity(c Calendar, start, end int64) (bool, error) {
	if err := checkSpan("calendar.WithinCapacity", start, end); err != nil {
		return false, err
	}
	w, ok := c.(withinner)
	if !ok {
		return false, slotfare.E(slotfare.Op("calendar.WithinCapacity"), slotfare.Other, "calendar type does not report its excess")
	}
	return w.within(start, end), nil
}
