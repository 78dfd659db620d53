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
	i := p.index(t)
	if p.steps[i].t == t {
		return i
	}
	p.steps = append(p.steps, freeStep{})
	copy(p.steps[i+2:], p.steps[i+1:])
	p.steps[i+1] = freeStep{t: t, free: p.steps[i].free}
	return i + 1
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
