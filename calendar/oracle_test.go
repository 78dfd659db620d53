package calendar

import (
	"slices"
	"sort"
)

// oracle is the brute-force reference: it keeps the reservations and the
// capacity changes as plain lists and answers every question by evaluating
// usage and capacity at each instant where either can change.
type oracle struct {
	base int
	caps []capSet // applied in order; the last covering t wins
	res  []Reservation
}

type capSet struct {
	from, to int64
	n        int
}

func (o *oracle) capacity(t int64) int {
	c := o.base
	for _, s := range o.caps {
		if s.from <= t && t < s.to {
			c = s.n
		}
	}
	return c
}

func (o *oracle) maxCapacity() int {
	// The capacity is constant between breakpoints; look at each piece.
	m := -1
	for _, t := range o.points() {
		m = max(m, o.capacity(t))
	}
	return m
}

func (o *oracle) used(t int64) int {
	u := 0
	for _, r := range o.res {
		if r.Start <= t && t < r.End {
			u += r.Nodes
		}
	}
	return u
}

func (o *oracle) free(t int64) int { return o.capacity(t) - o.used(t) }

// points returns every instant where the free function may change, plus
// MinTime.
func (o *oracle) points() []int64 {
	p := []int64{MinTime}
	for _, s := range o.caps {
		p = append(p, s.from, s.to)
	}
	for _, r := range o.res {
		p = append(p, r.Start, r.End)
	}
	sort.Slice(p, func(i, j int) bool { return p[i] < p[j] })
	return slices.Compact(p)
}

func (o *oracle) fits(s, e int64, n int) bool {
	if o.free(s) < n {
		return false
	}
	for _, p := range o.points() {
		if p > s && p < e && o.free(p) < n {
			return false
		}
	}
	return true
}

func (o *oracle) get(id string) (Reservation, bool) {
	for _, r := range o.res {
		if r.ID == id {
			return r, true
		}
	}
	return Reservation{}, false
}

func (o *oracle) add(r Reservation) { o.res = append(o.res, r) }

func (o *oracle) delete(id string) {
	for i, r := range o.res {
		if r.ID == id {
			o.res = append(o.res[:i], o.res[i+1:]...)
			return
		}
	}
}

func (o *oracle) nextFree(from, limit, dur int64, n int) (int64, bool) {
	cands := []int64{from}
	for _, p := range o.points() {
		if p > from && p <= limit {
			cands = append(cands, p)
		}
	}
	for _, t := range cands {
		if o.fits(t, t+dur, n) {
			return t, true
		}
	}
	return 0, false
}

func (o *oracle) profile(from, to int64) []Step {
	var out []Step
	cuts := []int64{from}
	for _, p := range o.points() {
		if p > from && p < to {
			cuts = append(cuts, p)
		}
	}
	cuts = append(cuts, to)
	for i := 0; i+1 < len(cuts); i++ {
		out = appendStep(out, cuts[i], cuts[i+1], o.free(cuts[i]))
	}
	return out
}

// replaceFits answers Replace's rule instant by instant: wherever r holds
// more nodes than old, what is reserved without old, plus r, must fit.
func (o *oracle) replaceFits(old, r Reservation) bool {
	held := func(x Reservation, t int64) int {
		if x.Start <= t && t < x.End {
			return x.Nodes
		}
		return 0
	}
	for _, p := range append(o.points(), r.Start) {
		if p < r.Start || p >= r.End {
			continue
		}
		if r.Nodes > held(old, p) && o.used(p)-held(old, p)+r.Nodes > o.capacity(p) {
			return false
		}
	}
	return true
}

// within: nothing reserved beyond the capacity at any instant of [s, e).
func (o *oracle) within(s, e int64) bool {
	for _, p := range append(o.points(), s) {
		if p >= s && p < e && o.used(p) > o.capacity(p) {
			return false
		}
	}
	return true
}
