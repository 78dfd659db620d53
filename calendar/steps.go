package calendar

// stepFn is a step function of time kept as two parallel sorted arrays: v[i]
// holds on [t[i], t[i+1]), the last value holds up to MaxTime. t[0] is always
// MinTime and adjacent values always differ, so the arrays are as short as the
// function allows. It is the flat representation the tree uses for small books
// (a binary search and a short contiguous scan beat pointer chasing there) and
// the capacity function every implementation keeps.
type stepFn struct {
	t []int64
	v []int
}

func newStepFn(v int) stepFn {
	return stepFn{t: []int64{MinTime}, v: []int{v}}
}

// find returns the index of the step holding instant x: the largest i with
// t[i] <= x.
func (s *stepFn) find(x int64) int {
	t := s.t
	lo, hi := 0, len(t)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if t[m] <= x {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// at returns the value at instant x.
func (s *stepFn) at(x int64) int { return s.v[s.find(x)] }

// end returns where step i ends.
func (s *stepFn) end(i int) int64 {
	if i+1 < len(s.t) {
		return s.t[i+1]
	}
	return MaxTime
}

// split makes x a breakpoint and returns the index of the step starting at x.
func (s *stepFn) split(x int64) int {
	i := s.find(x)
	if s.t[i] == x {
		return i
	}
	s.t = append(s.t, 0)
	s.v = append(s.v, 0)
	copy(s.t[i+2:], s.t[i+1:])
	copy(s.v[i+2:], s.v[i+1:])
	s.t[i+1] = x
	s.v[i+1] = s.v[i]
	return i + 1
}

// remove deletes breakpoint i (i >= 1), merging step i into step i-1.
func (s *stepFn) remove(i int) {
	copy(s.t[i:], s.t[i+1:])
	copy(s.v[i:], s.v[i+1:])
	s.t = s.t[:len(s.t)-1]
	s.v = s.v[:len(s.v)-1]
}

// add adds d to the value over [from, to).
func (s *stepFn) add(from, to int64, d int) {
	if d == 0 {
		return
	}
	i := s.split(from)
	j := len(s.t)
	if to < MaxTime {
		j = s.split(to)
	}
	for k := i; k < j; k++ {
		s.v[k] += d
	}
	s.mergeAround(i, j)
}

// set sets the value over [from, to) to v.
func (s *stepFn) set(from, to int64, v int) {
	i := s.split(from)
	j := len(s.t)
	if to < MaxTime {
		j = s.split(to)
	}
	s.v[i] = v
	if j > i+1 {
		s.t = append(s.t[:i+1], s.t[j:]...)
		s.v = append(s.v[:i+1], s.v[j:]...)
		j = i + 1
	}
	s.mergeAround(i, j)
}

// mergeAround restores "adjacent values differ" at breakpoints j and i after
// a change to steps [i, j).
func (s *stepFn) mergeAround(i, j int) {
	if j < len(s.t) && s.v[j] == s.v[j-1] {
		s.remove(j)
	}
	if i > 0 && s.v[i] == s.v[i-1] {
		s.remove(i)
	}
}

// max returns the largest value anywhere.
func (s *stepFn) max() int {
	m := s.v[0]
	for _, v := range s.v[1:] {
		m = max(m, v)
	}
	return m
}

// minOver returns the smallest value over [from, to).
func (s *stepFn) minOver(from, to int64) int {
	i := s.find(from)
	m := s.v[i]
	for k := i + 1; k < len(s.t) && s.t[k] < to; k++ {
		m = min(m, s.v[k])
	}
	return m
}
