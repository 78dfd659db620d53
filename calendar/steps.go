package calendar

// stepFn is a step function of time kept as one sorted array of points:
// p[i].v holds on [p[i].t, p[i+1].t), the last value up to MaxTime. p[0].t
// is always MinTime and adjacent values always differ, so the array is as
// short as the function allows. It is the flat representation the tree uses
// for small books (a galloping search and a short contiguous scan beat
// pointer chasing there) and the capacity function every implementation
// keeps.
//
// The array is a view into a larger buffer with room on both sides, so an
// insertion or removal moves whichever side of the position is shorter. A
// reservation calendar is edited mostly near "now", which sits near the start
// of the arrays once the past has merged into one step: those edits move a
// few entries instead of the whole future.
type stepFn struct {
	p   []point // buf[lo:lo+n]
	buf []point
	lo  int
}

// point is one breakpoint: the value v holds from t to the next point.
type point struct {
	t int64
	v int
}

func newStepFn(v int) stepFn {
	s := stepFn{buf: make([]point, 16), lo: 8}
	s.buf[8] = point{MinTime, v}
	s.p = s.buf[8:9]
	return s
}

// find returns the index of the step holding instant x: the largest i with
// p[i].t <= x. It gallops from the front (1, 2, 4, ... entries in) before it
// bisects: once the past has merged into the first step, a calendar's
// traffic (deletions of what just ended, requests starting soon) lands near
// the front, where this costs a few probes instead of a full bisection.
func (s *stepFn) find(x int64) int {
	p := s.p
	n := len(p)
	lo, step := 0, 1
	for lo+step < n && p[lo+step].t <= x {
		lo += step
		step <<= 1
	}
	hi := min(lo+step, n)
	// Invariant: p[lo].t <= x, and p[hi].t > x or hi == n.
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if p[m].t <= x {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// at returns the value at instant x.
func (s *stepFn) at(x int64) int { return s.p[s.find(x)].v }

// end returns where step i ends.
func (s *stepFn) end(i int) int64 {
	if i+1 < len(s.p) {
		return s.p[i+1].t
	}
	return MaxTime
}

// insertAt inserts the breakpoint (x, val) at index i (1 <= i <= len).
func (s *stepFn) insertAt(i int, x int64, val int) {
	n := len(s.p)
	lo, hi := s.lo, s.lo+n
	switch {
	case lo > 0 && (2*i <= n || hi == len(s.buf)):
		// Move the prefix one to the left.
		shiftDown(s.buf[lo-1 : lo+i])
		s.lo--
	case hi < len(s.buf):
		// Move the suffix one to the right.
		shiftUp(s.buf[lo+i : hi+1])
	default:
		// Full on both sides: regrow with room on each side.
		size := 2*n + 16
		buf := make([]point, size)
		lo := (size - n - 1) / 2
		copy(buf[lo:], s.p[:i])
		copy(buf[lo+i+1:], s.p[i:])
		s.buf, s.lo = buf, lo
	}
	s.buf[s.lo+i] = point{x, val}
	s.p = s.buf[s.lo : s.lo+n+1]
}

// remove deletes breakpoint i (i >= 1), merging step i into step i-1.
func (s *stepFn) remove(i int) {
	n := len(s.p)
	lo := s.lo
	if 2*i <= n {
		shiftUp(s.buf[lo : lo+i+1])
		s.lo++
	} else {
		shiftDown(s.buf[lo+i : lo+n])
	}
	s.p = s.buf[s.lo : s.lo+n-1]
	if len(s.buf) > 4096 && n < len(s.buf)/16 {
		s.shrink()
	}
}

// shiftDown moves p[1:] to p[:len(p)-1]; short moves (the usual case near
// "now") are a plain loop, which beats a call to memmove.
func shiftDown(p []point) {
	if len(p) > 16 {
		copy(p, p[1:])
		return
	}
	for k := 0; k+1 < len(p); k++ {
		p[k] = p[k+1]
	}
}

// shiftUp moves p[:len(p)-1] to p[1:].
func shiftUp(p []point) {
	if len(p) > 16 {
		copy(p[1:], p)
		return
	}
	for k := len(p) - 1; k > 0; k-- {
		p[k] = p[k-1]
	}
}

// shrink moves the points into a smaller buffer after many removals.
func (s *stepFn) shrink() {
	n := len(s.p)
	size := 2*n + 16
	buf := make([]point, size)
	lo := (size - n) / 2
	copy(buf[lo:], s.p)
	s.buf, s.lo = buf, lo
	s.p = buf[lo : lo+n]
}

// split makes x a breakpoint and returns the index of the step starting at x.
func (s *stepFn) split(x int64) int {
	i := s.find(x)
	if s.p[i].t == x {
		return i
	}
	s.insertAt(i+1, x, s.p[i].v)
	return i + 1
}

// add adds d to the value over [from, to).
func (s *stepFn) add(from, to int64, d int) {
	if d == 0 {
		return
	}
	i := s.find(from)
	j := i + 1
	for j < len(s.p) && s.p[j].t < to {
		j++
	}
	s.addIdx(i, j, from, to, d)
}

// addIdx adds d over [from, to) when i is the step holding from and j the
// first breakpoint at or after to (len(t) if none).
func (s *stepFn) addIdx(i, j int, from, to int64, d int) {
	if s.p[i].t != from {
		s.insertAt(i+1, from, s.p[i].v)
		i++
		j++
	}
	if to < MaxTime && (j == len(s.p) || s.p[j].t != to) {
		s.insertAt(j, to, s.p[j-1].v)
	}
	p := s.p[i:j]
	for k := range p {
		p[k].v += d
	}
	s.mergeAround(i, j)
}

// set sets the value over [from, to) to v.
func (s *stepFn) set(from, to int64, v int) {
	i := s.split(from)
	j := len(s.p)
	if to < MaxTime {
		j = s.split(to)
	}
	s.p[i].v = v
	for j > i+1 {
		j--
		s.remove(j)
	}
	s.mergeAround(i, i+1)
}

// mergeAround restores "adjacent values differ" at breakpoints j and i after
// a change to steps [i, j).
func (s *stepFn) mergeAround(i, j int) {
	if j < len(s.p) && s.p[j].v == s.p[j-1].v {
		s.remove(j)
	}
	if i > 0 && s.p[i].v == s.p[i-1].v {
		s.remove(i)
	}
}

// max returns the largest value anywhere.
func (s *stepFn) max() int {
	m := s.p[0].v
	for _, q := range s.p[1:] {
		m = max(m, q.v)
	}
	return m
}

// minOver returns the smallest value over [from, to).
func (s *stepFn) minOver(from, to int64) int {
	i := s.find(from)
	m := s.p[i].v
	for k := i + 1; k < len(s.p) && s.p[k].t < to; k++ {
		m = min(m, s.p[k].v)
	}
	return m
}
