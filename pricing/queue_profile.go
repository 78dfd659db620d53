package pricing

// freeStep says that from instant t until the next step, free nodes are idle.
type freeStep struct {
	t    int64
	free int64
}

// freeProfile is the machine's free capacity over [origin, +inf) as a step
// function: steps sorted by t, the first at the origin, the last one's free
// equal to the capacity (every block ends). It is what every planner places
// jobs into. Steps are never merged: a released block leaves its breakpoints,
// which changes no answer and keeps indices stable for the incremental
// planners.
type freeProfile struct {
	steps []freeStep
}

func newFreeProfile(origin, capacity int64) freeProfile {
	return freeProfile{steps: []freeStep{{t: origin, free: capacity}}}
}

// cloneInto copies p into dst's storage, reusing it when large enough.
func (p *freeProfile) cloneInto(dst *freeProfile) {
	dst.steps = append(dst.steps[:0], p.steps...)
}

// index returns the step holding instant t (t at or after the origin).
func (p *freeProfile) index(t int64) int {
	s := p.steps
	base, n := 0, len(s)
	for n > 1 {
		half := n >> 1
		if s[base+half].t <= t {
			base += half // a conditional move: no branch to mispredict
		}
		n -= half
	}
	return base
}

// split makes t a breakpoint and returns its step index.
func (p *freeProfile) split(t int64) int {
	return p.splitAt(p.index(t), t)
}

// splitAt is split with k the step holding t.
func (p *freeProfile) splitAt(k int, t int64) int {
	if p.steps[k].t == t {
		return k
	}
	p.steps = append(p.steps, freeStep{})
	copy(p.steps[k+2:], p.steps[k+1:])
	p.steps[k+1] = freeStep{t: t, free: p.steps[k].free}
	return k + 1
}

// add changes free capacity by delta over [a, b) (a < b, a at or after the
// origin): negative to occupy, positive to release.
func (p *freeProfile) add(a, b, delta int64) {
	p.addAt(p.split(a), b, delta)
}

// addAt is add for a block starting at the breakpoint of step k.
func (p *freeProfile) addAt(k int, b, delta int64) {
	s := p.steps
	i := k
	for i < len(s) && s[i].t < b {
		s[i].free += delta
		i++
	}
	if i < len(s) && s[i].t == b {
		return
	}
	p.steps = append(p.steps, freeStep{})
	copy(p.steps[i+1:], p.steps[i:])
	p.steps[i] = freeStep{t: b, free: p.steps[i-1].free - delta}
}

func (p *freeProfile) occupy(a, b, n int64)  { p.add(a, b, -n) }
func (p *freeProfile) release(a, b, n int64) { p.add(a, b, n) }

// occupyAt is occupy for a block starting at the breakpoint of step k.
func (p *freeProfile) occupyAt(k int, b, n int64) { p.addAt(k, b, -n) }

// compact drops breakpoints where free capacity does not change, such as
// those a released block leaves behind.
func (p *freeProfile) compact() {
	s := p.steps
	out := s[:1]
	for _, st := range s[1:] {
		if st.free != out[len(out)-1].free {
			out = append(out, st)
		}
	}
	p.steps = out
}

// fits reports whether n nodes are free throughout [t, t+r).
func (p *freeProfile) fits(t, r, n int64) bool {
	return p.fitsAt(p.index(t), t, r, n)
}

// fitsAt is fits with k the step holding t.
func (p *freeProfile) fitsAt(k int, t, r, n int64) bool {
	s := p.steps
	end := t + r
	for ; k < len(s) && s[k].t < end; k++ {
		if s[k].free < n {
			return false
		}
	}
	return true
}

// earliest returns the first instant at or after t0 from which n nodes are
// free for r seconds. It always exists because the last step is empty and n
// never exceeds the capacity.
func (p *freeProfile) earliest(t0, r, n int64) int64 {
	return p.earliestAt(p.index(t0), t0, r, n)
}

// earliestAt is earliest with k the step holding t0.
func (p *freeProfile) earliestAt(k int, t0, r, n int64) int64 {
	s := p.steps
	cand := t0
	last := len(s) - 1
	for ; k < last; k++ {
		if s[k].free < n {
			cand = s[k+1].t
			continue
		}
		if s[k+1].t-cand >= r {
			return cand
		}
	}
	return cand
}

// earliestBefore is earliest limited to starts before hi: it returns the
// first fitting start in [t0, hi), or ok == false when there is none. It
// looks at most r past hi.
func (p *freeProfile) earliestBefore(t0, hi, r, n int64) (int64, bool) {
	s := p.steps
	cand := t0
	last := len(s) - 1
	for k := p.index(t0); cand < hi; k++ {
		if k == last {
			return cand, true
		}
		if s[k].free < n {
			cand = s[k+1].t
			continue
		}
		if s[k+1].t-cand >= r {
			return cand, true
		}
	}
	return 0, false
}

// indexFrom is index for an instant t at or after step k's: it gallops
// forward from k, cheaper than a search of the whole profile when t is near.
func (p *freeProfile) indexFrom(k int, t int64) int {
	s := p.steps
	step := 1
	for k+step < len(s) && s[k+step].t <= t {
		k += step
		step <<= 1
	}
	// The step holding t is in [k, k+step).
	n := min(step, len(s)-k)
	for n > 1 {
		half := n >> 1
		if s[k+half].t <= t {
			k += half
		}
		n -= half
	}
	return k
}

// earliestVacated looks for the earliest start in [lb, v) from which n
// nodes are free for r seconds, among the blocks that contain an instant of
// vac (sorted, disjoint intervals) before v. Whenever the earliest fit in
// [lb, v) contains such an instant, it returns that fit and the step holding
// it; any start it returns is a fit in [lb, v); ok == false when it finds
// none. In perturbOrdered the earliest fit before the base start always
// contains a vacated instant before the base start, so there the answer is
// exact.
//
// A fit lies inside one maximal run of steps with room (n nodes free), and
// the earliest fit is the start of its run (or lb). So it visits the steps
// inside the vacated intervals up to v, and for each run met there extends
// it back to its start (not before lb) and forward: the first run lasting r
// seconds from its start gives the answer, since runs are disjoint and met
// in time order. A search of every window a vacated block opens would also
// walk r seconds either side of it.
func (p *freeProfile) earliestVacated(vac []interval, lb, v, r, n int64) (int64, int, bool) {
	s := p.steps
	last := len(s) - 1
	limit := v
	done := lb // instants before done are settled
	k := -1    // the step where the last walk stopped
	for _, iv := range vac {
		if iv.a >= limit {
			break
		}
		lo, hi := max(iv.a, done), min(iv.b, limit)
		if lo >= hi {
			continue
		}
		if k < 0 {
			k = p.index(lo)
		} else {
			for k > 0 && s[k].t > lo {
				k-- // the last walk stopped at most two steps past lo
			}
			k = p.indexFrom(k, lo)
		}
		for ; k <= last && s[k].t < hi; k++ {
			if s[k].free < n {
				continue
			}
			// Step k has room inside the vacated interval: its run.
			a := k
			for s[a].t > lb && s[a-1].free >= n {
				a--
			}
			start := max(s[a].t, lb)
			if start >= v {
				return 0, 0, false // every later run starts later still
			}
			e := k
			for e < last && s[e+1].free >= n && s[e+1].t-start < r {
				e++
			}
			if e == last || s[e+1].t-start >= r {
				return start, a, true
			}
			// Too short: the run ends at step e+1, which has no room.
			done = s[e+1].t
			k = e + 1
		}
		k = min(k, last)
	}
	return 0, 0, false
}
