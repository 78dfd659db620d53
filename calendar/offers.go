package calendar

import (
	"cmp"
	"slices"
	"sort"

	"slotfare"
)

// Query is an elastic reservation query (seed 004, Sec. 6.2): any placement
// inside the window [EarliestStart, LatestEnd) will do. Duration 0 and
// Nodes 0 mean "any"; when both are given an offer that meets them is a
// solution.
type Query struct {
	EarliestStart, LatestEnd int64
	Duration                 int64
	Nodes                    int
}

// Strategy chooses how Offers places a query.
type Strategy string

// The strategies Offers knows.
const (
	// OSP is the thesis's on-line strip packing (seed 004, Alg. 8): use the
	// tightest free period first, widening it to the left, then the right.
	OSP Strategy = "osp"
	// FirstFit takes the earliest free gap that holds the request (seed
	// 002, Sec. 4.1).
	FirstFit Strategy = "first-fit"
	// BestFit takes the free gap that leaves the least time unused (seed
	// 002, Sec. 4.1).
	BestFit Strategy = "best-fit"
)

// ParseStrategy reads a strategy name; "" is OSP, the default.
func ParseStrategy(s string) (Strategy, error) {
	switch Strategy(s) {
	case "", OSP:
		return OSP, nil
	case FirstFit, BestFit:
		return Strategy(s), nil
	}
	return "", slotfare.Errorf("calendar.ParseStrategy", "strategy", "unknown strategy %q (want osp, first-fit or best-fit)", s)
}

// Offer is one placement offered for a query: Nodes nodes over [Start, End).
// Solution marks the offer that meets the query's duration and nodes.
type Offer struct {
	Start, End int64
	Nodes      int
	Solution   bool
}

// FreeProfile is what Offers reads of a calendar: its free capacity over
// time and the largest capacity it ever has. Every Calendar is one; so is a
// view of capacity kept elsewhere (a nested group on a shared inventory).
type FreeProfile interface {
	Profile(from, to int64) ([]Step, error)
	MaxCapacity() int
}

// FitsProfile reports whether nodes fit over [start, end) on the free
// profile steps (Profile's answer over a window holding [start, end)): the
// free capacity is at least nodes at every instant of it, as Fits decides
// on the calendar the profile was read from. An interval the steps do not
// cover does not fit.
func FitsProfile(steps []Step, start, end int64, nodes int) bool {
	covered := start
	for _, st := range steps {
		if st.End <= start || st.Start >= end {
			continue
		}
		if st.Start > covered || st.Free < nodes {
			return false
		}
		covered = st.End
	}
	return covered >= end
}

// Offers answers q against c with strategy s: at most max offers, the
// solution first when one meets both duration and nodes, then alternatives
// (shorter periods, or more nodes when nodes were not asked for). An offer
// is never longer than the duration asked for and never holds more nodes
// than asked for; every offer fits c when it is made. It reads c through the
// interface only (Profile), so it works on every implementation.
func Offers(c FreeProfile, q Query, s Strategy, max int) ([]Offer, error) {
	const op slotfare.Op = "calendar.Offers"
	if err := checkSpan(op, q.EarliestStart, q.LatestEnd); err != nil {
		return nil, err
	}
	if q.Duration < 0 {
		return nil, slotfare.Errorf(op, fieldDuration, "duration must not be negative, got %d", q.Duration)
	}
	if q.Nodes < 0 {
		return nil, slotfare.Errorf(op, fieldNodes, "nodes must not be negative, got %d", q.Nodes)
	}
	if q.Nodes > c.MaxCapacity() {
		return nil, slotfare.Errorf(op, fieldNodes, "nodes %d exceed the capacity %d", q.Nodes, c.MaxCapacity())
	}
	if max < 1 {
		return nil, slotfare.Errorf(op, "max", "max must be at least 1, got %d", max)
	}
	if s == "" {
		s = OSP
	}
	if _, err := ParseStrategy(string(s)); err != nil {
		return nil, slotfare.E(op, err)
	}
	steps, err := c.Profile(q.EarliestStart, q.LatestEnd)
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	need := q.Nodes
	if need == 0 {
		need = 1
	}
	needSol := q.Duration > 0 && q.Nodes > 0
	var out []Offer
	switch s {
	case OSP:
		out = osp(steps, q, need, needSol, max)
	default:
		out = gapOffers(steps, q, need, needSol, s == BestFit)
	}
	if len(out) > max {
		out = out[:max]
	}
	return out, nil
}

// osp is Alg. 8 of seed 004 (Sec. 6.3) over a continuous profile: the
// "consecutive slots" are the profile's steps; they are visited in
// increasing order of free nodes (ties: earlier first), each one with enough
// nodes is widened to the left and then to the right over neighbours with
// enough nodes until it is as long as the duration, and the first widened
// period that is long enough becomes the solution and ends the search.
//
// It answers at most max offers, the solution first: once max
// alternatives are kept only a solution can still change the answer (it
// displaces the last), so none is made or compared beyond them. Only the
// steps with enough nodes are ranked, by (free, position), which is the
// stable order by free nodes the algorithm visits.
func osp(steps []Step, q Query, need int, needSol bool, max int) []Offer {
	var buf [64]int32
	rank := buf[:0]
	for i, st := range steps {
		if st.Free >= need {
			rank = append(rank, int32(i))
		}
	}
	if len(rank) == 0 {
		return nil
	}
	slices.SortFunc(rank, func(a, b int32) int {
		if c := cmp.Compare(steps[a].Free, steps[b].Free); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := make([]Offer, 0, min(max, len(rank)))
	for _, idx := range rank {
		if len(out) == max && !needSol {
			break // no solution to look for: the alternatives are all made
		}
		o, solution := ospWiden(steps, int(idx), q, need)
		solution = needSol && solution
		if solution {
			o.Solution = true
			if len(out) == max {
				out = out[:max-1]
			}
			return slices.Insert(out, 0, o)
		}
		if len(out) < max && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// ospWiden is step idx widened over its neighbours with need nodes free
// until it is as long as q's duration (left first), placed (place), and
// whether it is that long.
func ospWiden(steps []Step, idx int, q Query, need int) (Offer, bool) {
	st := steps[idx]
	head, tail := idx, idx
	length := st.End - st.Start
	minFree := st.Free
	for l := idx - 1; l >= 0 && q.Duration > 0 && length < q.Duration; l-- {
		if steps[l].Free < need {
			break
		}
		head = l
		length += steps[l].End - steps[l].Start
		minFree = min(minFree, steps[l].Free)
	}
	for r := idx + 1; r < len(steps) && q.Duration > 0 && length < q.Duration; r++ {
		if steps[r].Free < need {
			break
		}
		tail = r
		length += steps[r].End - steps[r].Start
		minFree = min(minFree, steps[r].Free)
	}
	o := place(steps[head].Start, steps[tail].End, st.Start, st.End, q.Duration)
	o.Nodes = minFree
	if q.Nodes > 0 {
		o.Nodes = q.Nodes
	}
	return o, o.End-o.Start >= q.Duration
}

// place trims the free period [h, t) to at most dur (0: no trim), keeping as
// much of the anchor step [a, b) as possible and, among those placements, the
// earliest.
func place(h, t, a, b, dur int64) Offer {
	if dur <= 0 || t-h <= dur {
		return Offer{Start: h, End: t}
	}
	x := max(h, min(a, b-dur))
	x = min(x, t-dur)
	return Offer{Start: x, End: x + dur}
}

// gap is a maximal period of the window with at least the asked nodes free.
type gap struct {
	start, end int64
	minFree    int
}

// gapOffers is the gap search of seed 002 (Sec. 4.1) over the profile: the
// free gaps are the maximal periods with enough nodes; first fit takes the
// earliest gap that is long enough, best fit the one that leaves the least
// time over (ties: earlier). Alternatives follow: for first fit in time
// order, for best fit the long-enough gaps by leftover time, then the short
// ones longest first.
func gapOffers(steps []Step, q Query, need int, needSol, best bool) []Offer {
	var gaps []gap
	for _, st := range steps {
		if st.Free < need {
			continue
		}
		if n := len(gaps); n > 0 && gaps[n-1].end == st.Start {
			gaps[n-1].end = st.End
			gaps[n-1].minFree = min(gaps[n-1].minFree, st.Free)
			continue
		}
		gaps = append(gaps, gap{st.Start, st.End, st.Free})
	}
	if best && q.Duration > 0 {
		long := func(g gap) bool { return g.end-g.start >= q.Duration }
		sort.SliceStable(gaps, func(a, b int) bool {
			ga, gb := gaps[a], gaps[b]
			la, lb := long(ga), long(gb)
			if la != lb {
				return la
			}
			if la {
				return ga.end-ga.start < gb.end-gb.start
			}
			return ga.end-ga.start > gb.end-gb.start
		})
	}
	out := make([]Offer, 0, len(gaps))
	solAt := -1
	for _, g := range gaps {
		o := place(g.start, g.end, g.start, g.end, q.Duration)
		o.Nodes = g.minFree
		if q.Nodes > 0 {
			o.Nodes = q.Nodes
		}
		if needSol && solAt < 0 && o.End-o.Start >= q.Duration {
			o.Solution = true
			solAt = len(out)
		}
		out = append(out, o)
	}
	if solAt > 0 {
		sol := out[solAt]
		copy(out[1:solAt+1], out[:solAt])
		out[0] = sol
	}
	return out
}
