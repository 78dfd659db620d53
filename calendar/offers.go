package calendar

import (
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
	return OffersInto(nil, c, q, s, max)
}

// OffersInto is Offers in buf's storage (buf[:0], grown when it has not
// the room): the offers buf held are overwritten. A caller that makes
// many queries keeps one buffer for their offers.
func OffersInto(buf []Offer, c FreeProfile, q Query, s Strategy, max int) ([]Offer, error) {
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
		out = osp(buf[:0], steps, q, need, needSol, max)
	default:
		out = gapOffers(buf[:0], steps, q, need, needSol, s == BestFit)
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
// alternatives are made only a solution can still change the answer (it
// displaces the last). The steps with enough nodes are taken in the
// algorithm's order, by (free, position), from a heap until then; after,
// the solution is the widening of the first of them in that order inside
// a run of such steps as long as the duration (ospSolution), as widening
// any other step makes only a period shorter than the duration. The
// steps are contiguous, as Profile answers them.
func osp(out []Offer, steps []Step, q Query, need int, needSol bool, max int) []Offer {
	var buf [512]int32
	h := stepHeap{steps: steps, idx: buf[:0]}
	for i, st := range steps {
		if st.Free >= need {
			h.idx = append(h.idx, int32(i))
		}
	}
	if len(h.idx) == 0 {
		return out
	}
	h.init()
	if n := min(max, len(h.idx)); cap(out) < n {
		out = make([]Offer, 0, n) // sized once
	}
	for len(h.idx) > 0 && len(out) < max {
		o, long := ospWiden(steps, h.pop(), q, need)
		if needSol && long {
			o.Solution = true
			return slices.Insert(out, 0, o)
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if !needSol || len(h.idx) == 0 {
		return out
	}
	if o, ok := ospSolution(steps, q, need); ok {
		return slices.Insert(out[:max-1], 0, o)
	}
	return out
}

// ospSolution is the widening of the least step by (free, position) among
// those with need nodes inside a run of such steps at least q.Duration
// long: the solution osp's visits would end on; ok is false when no run
// is that long.
func ospSolution(steps []Step, q Query, need int) (Offer, bool) {
	best, h := -1, stepHeap{steps: steps}
	for i := 0; i < len(steps); {
		if steps[i].Free < need {
			i++
			continue
		}
		least, length := i, int64(0)
		for ; i < len(steps) && steps[i].Free >= need; i++ {
			length += steps[i].End - steps[i].Start
			if h.less(int32(i), int32(least)) {
				least = i
			}
		}
		if length >= q.Duration && (best < 0 || h.less(int32(least), int32(best))) {
			best = least
		}
	}
	if best < 0 {
		return Offer{}, false
	}
	o, long := ospWiden(steps, best, q, need)
	o.Solution = true
	return o, long
}

// stepHeap is a min-heap of step positions by (free nodes, position).
type stepHeap struct {
	steps []Step
	idx   []int32
}

func (h *stepHeap) less(a, b int32) bool {
	fa, fb := h.steps[a].Free, h.steps[b].Free
	return fa < fb || fa == fb && a < b
}

func (h *stepHeap) init() {
	for i := len(h.idx)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// pop removes and returns the least position.
func (h *stepHeap) pop() int {
	top := h.idx[0]
	n := len(h.idx) - 1
	h.idx[0] = h.idx[n]
	h.idx = h.idx[:n]
	h.down(0)
	return int(top)
}

func (h *stepHeap) down(i int) {
	n := len(h.idx)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(h.idx[r], h.idx[l]) {
			m = r
		}
		if !h.less(h.idx[m], h.idx[i]) {
			return
		}
		h.idx[i], h.idx[m] = h.idx[m], h.idx[i]
		i = m
	}
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
func gapOffers(out []Offer, steps []Step, q Query, need int, needSol, best bool) []Offer {
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
	if cap(out) < len(gaps) {
		out = make([]Offer, 0, len(gaps)) // sized once
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
