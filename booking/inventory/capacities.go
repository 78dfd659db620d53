package inventory

import (
	"slices"
	"sort"
)

// capacities is one group's capacity as a step function: the capacity is
// vals[i] from times[i] to times[i+1] (the last to MaxTime); times[0] is
// MinTime, and no two neighbours have one value. The in-process inventory
// keeps it beside the group's calendar, which answers the capacity at an
// instant but not over a span, to tell whether a write changes anything.
type capacities struct {
	times []int64
	vals  []int
}

func newCapacities(nodes int) capacities {
	return capacities{times: []int64{MinTime}, vals: []int{nodes}}
}

// clone is a copy c's changes do not reach.
func (c capacities) clone() capacities {
	return capacities{times: append([]int64(nil), c.times...), vals: append([]int(nil), c.vals...)}
}

// at is the index of the step holding instant t.
func (c capacities) at(t int64) int {
	return sort.Search(len(c.times), func(i int) bool { return c.times[i] > t }) - 1
}

// differs reports whether the capacity over [from, to) is anything but
// nodes somewhere.
func (c capacities) differs(from, to int64, nodes int) bool {
	for i := c.at(from); i < len(c.times) && c.times[i] < to; i++ {
		if c.vals[i] != nodes {
			return true
		}
	}
	return false
}

// set makes the capacity nodes over [from, to) (within [MinTime, MaxTime])
// and reports whether that changed it.
func (c *capacities) set(from, to int64, nodes int) bool {
	if !c.differs(from, to, nodes) {
		return false
	}
	i, j := c.at(from), c.at(to)
	after := c.vals[j] // the value from to on, kept
	// The steps starting in [from, to] (lo..j) give way to [from, to) and
	// what follows it, each only where it differs from its neighbour.
	lo := i
	if c.times[i] < from {
		lo = i + 1
	}
	var ts []int64
	var vs []int
	if lo == 0 || c.vals[lo-1] != nodes {
		ts, vs = append(ts, from), append(vs, nodes)
	}
	if after != nodes && to < MaxTime {
		ts, vs = append(ts, to), append(vs, after)
	}
	c.times = slices.Replace(c.times, lo, j+1, ts...)
	c.vals = slices.Replace(c.vals, lo, j+1, vs...)
	return true
}
