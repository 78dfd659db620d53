package calendar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slotfare"
)

// impl describes one implementation for the shared tests: how to build it
// and the time grid its inputs must sit on (unit 1 for continuous time).
type impl struct {
	name string
	new  func(capacity int) (Calendar, error)
	// unit scales the test's abstract times; origin shifts them.
	unit, origin int64
}

func impls() []impl {
	return []impl{
		{name: "tree", new: func(c int) (Calendar, error) { return NewTree(c) }, unit: 1},
		{name: "tree-btree", new: func(c int) (Calendar, error) { return newTree(c, 0, 0, 3) }, unit: 1},
		{name: "tree-switching", new: func(c int) (Calendar, error) { return newTree(c, 6, 3, 4) }, unit: 1},
		{name: "freelist", new: func(c int) (Calendar, error) { return NewFreeList(c) }, unit: 1},
		{name: "slotted", new: func(c int) (Calendar, error) { return NewSlotted(c, 1000, 300, 200) }, unit: 300, origin: 1000},
	}
}

// checker runs one random operation sequence against a calendar and the
// oracle, failing on the first disagreement.
type checker struct {
	t    *testing.T
	c    Calendar
	o    *oracle
	rng  *rand.Rand
	unit int64
	orig int64
	span int64 // abstract times are in [0, span)
	log  []string
	// lastFits is the interval of the last Fits call; adds reuse it often,
	// as callers do (Fits, then Add the same interval).
	lastFits [2]int64
}

func (k *checker) tm(x int64) int64 { return k.orig + x*k.unit }

func (k *checker) fail(format string, args ...any) {
	k.t.Helper()
	start := max(0, len(k.log)-30)
	k.t.Fatalf("%s\nlast ops:\n%v", fmt.Sprintf(format, args...), k.log[start:])
}

func (k *checker) interval() (int64, int64) {
	s := k.rng.Int64N(k.span)
	e := s + 1 + k.rng.Int64N(k.span/4+1)
	if k.rng.IntN(20) == 0 {
		e = s - k.rng.Int64N(3) // bad input: empty or reversed
	}
	return s, e
}

func (k *checker) nodes() int {
	m := k.o.maxCapacity()
	if k.rng.IntN(25) == 0 {
		return m + 1 + k.rng.IntN(3) - 2*k.rng.IntN(2)*(m+2) // sometimes > max, sometimes <= 0
	}
	return 1 + k.rng.IntN(max(m, 1))
}

func (k *checker) step() {
	k.t.Helper()
	c, o := k.c, k.o
	switch op := k.rng.IntN(100); {
	case op < 35: // add
		s, e := k.interval()
		n := k.nodes()
		id := fmt.Sprintf("r%d", k.rng.IntN(40))
		r := Reservation{ID: id, Start: k.tm(s), End: k.tm(e), Nodes: n}
		if k.rng.IntN(3) == 0 && k.lastFits[1] > k.lastFits[0] {
			r.Start, r.End = k.lastFits[0], k.lastFits[1]
			s, e = 0, 1 // only the validity check below reads them
		}
		k.log = append(k.log, fmt.Sprintf("Add(%+v)", r))
		err := c.Add(r)
		want := slotfare.Kind(255)
		_, dup := o.get(id)
		switch {
		case e <= s || n < 1 || n > o.maxCapacity():
			want = slotfare.Invalid
		case dup:
			want = slotfare.Conflict
		case !o.fits(r.Start, r.End, n):
			want = slotfare.NoCapacity
		}
		if want == 255 {
			if err != nil {
				k.fail("Add(%+v) = %v, want success", r, err)
			}
			o.add(r)
		} else if err == nil || slotfare.KindOf(err) != want {
			k.fail("Add(%+v) = %v, want kind %v", r, err, want)
		}
	case op < 55: // delete
		id := fmt.Sprintf("r%d", k.rng.IntN(40))
		k.log = append(k.log, "Delete("+id+")")
		got, err := c.Delete(id)
		want, ok := o.get(id)
		if !ok {
			if slotfare.KindOf(err) != slotfare.NotFound || slotfare.FieldOf(err) != "id" {
				k.fail("Delete(%s) = %v, want NotFound on id", id, err)
			}
			break
		}
		if err != nil || got != want {
			k.fail("Delete(%s) = %+v, %v, want %+v", id, got, err, want)
		}
		o.delete(id)
	case op < 75: // fits
		s, e := k.interval()
		k.lastFits = [2]int64{k.tm(s), k.tm(e)}
		n := k.nodes()
		k.log = append(k.log, fmt.Sprintf("Fits(%d,%d,%d)", k.tm(s), k.tm(e), n))
		got, err := c.Fits(k.tm(s), k.tm(e), n)
		if e <= s || n < 1 || n > o.maxCapacity() {
			if slotfare.KindOf(err) != slotfare.Invalid {
				k.fail("Fits(%d,%d,%d) = %v, %v, want Invalid", s, e, n, got, err)
			}
			break
		}
		if err != nil || got != o.fits(k.tm(s), k.tm(e), n) {
			k.fail("Fits(%d,%d,%d) = %v, %v; oracle %v", k.tm(s), k.tm(e), n, got, err, !got)
		}
	case op < 85: // next free
		from := k.rng.Int64N(k.span)
		limit := from + k.rng.Int64N(k.span/2)
		dur := 1 + k.rng.Int64N(k.span/5)
		n := 1 + k.rng.IntN(max(o.maxCapacity(), 1))
		k.log = append(k.log, fmt.Sprintf("NextFree(%d,%d,%d,%d)", k.tm(from), k.tm(limit), dur*k.unit, n))
		t, ok, err := c.NextFree(k.tm(from), k.tm(limit), dur*k.unit, n)
		wt, wok := o.nextFree(k.tm(from), k.tm(limit), dur*k.unit, n)
		if ok {
			k.lastFits = [2]int64{t, t + dur*k.unit}
		}
		if err != nil || ok != wok || (ok && t != wt) {
			k.fail("NextFree(%d,%d,%d,%d) = %d, %v, %v; oracle %d, %v", k.tm(from), k.tm(limit), dur*k.unit, n, t, ok, err, wt, wok)
		}
	case op < 89: // replace
		s, e := k.interval()
		n := k.nodes()
		id := fmt.Sprintf("r%d", k.rng.IntN(40))
		nid := id
		if k.rng.IntN(4) == 0 {
			nid = fmt.Sprintf("r%d", k.rng.IntN(40))
		}
		r := Reservation{ID: nid, Start: k.tm(s), End: k.tm(e), Nodes: n}
		k.log = append(k.log, fmt.Sprintf("Replace(%s, %+v)", id, r))
		err := c.Replace(id, r)
		want := slotfare.Kind(255)
		old, exists := o.get(id)
		_, dup := o.get(nid)
		switch {
		case e <= s || n < 1:
			want = slotfare.Invalid
		case !exists:
			want = slotfare.NotFound
		case nid != id && dup:
			want = slotfare.Conflict
		case !o.replaceFits(old, r):
			want = slotfare.NoCapacity
		}
		if want == 255 {
			if err != nil {
				k.fail("Replace(%s, %+v) = %v, want success", id, r, err)
			}
			o.delete(id)
			o.add(r)
		} else if err == nil || slotfare.KindOf(err) != want {
			k.fail("Replace(%s, %+v) = %v, want kind %v", id, r, err, want)
		}
	case op < 92: // profile
		s, e := k.interval()
		if e <= s {
			e = s + 1
		}
		k.log = append(k.log, fmt.Sprintf("Profile(%d,%d)", k.tm(s), k.tm(e)))
		got, err := c.Profile(k.tm(s), k.tm(e))
		want := o.profile(k.tm(s), k.tm(e))
		if err != nil || !slices.Equal(got, want) {
			k.fail("Profile(%d,%d) = %v, %v; oracle %v", k.tm(s), k.tm(e), got, err, want)
		}
	case op < 96: // set capacity
		s, e := k.interval()
		if e <= s {
			e = s + 1
		}
		n := k.rng.IntN(o.base + 3)
		k.log = append(k.log, fmt.Sprintf("SetCapacity(%d,%d,%d)", k.tm(s), k.tm(e), n))
		if err := c.SetCapacity(k.tm(s), k.tm(e), n); err != nil {
			k.fail("SetCapacity(%d,%d,%d) = %v", k.tm(s), k.tm(e), n, err)
		}
		o.caps = append(o.caps, capSet{k.tm(s), k.tm(e), n})
	default: // capacity, len, get
		x := k.tm(k.rng.Int64N(k.span))
		if got, want := c.Capacity(x), o.capacity(x); got != want {
			k.fail("Capacity(%d) = %d, want %d", x, got, want)
		}
		if got, want := c.MaxCapacity(), o.maxCapacity(); got != want {
			k.fail("MaxCapacity() = %d, want %d", got, want)
		}
		if got, want := c.Len(), len(o.res); got != want {
			k.fail("Len() = %d, want %d", got, want)
		}
		s, e := k.interval()
		if e <= s {
			e = s + 1
		}
		if got, err := WithinCapacity(c, k.tm(s), k.tm(e)); err != nil || got != o.within(k.tm(s), k.tm(e)) {
			k.fail("WithinCapacity(%d,%d) = %v, %v; oracle %v", k.tm(s), k.tm(e), got, err, !got)
		}
		id := fmt.Sprintf("r%d", k.rng.IntN(40))
		got, ok := c.Get(id)
		want, wok := o.get(id)
		if ok != wok || got != want {
			k.fail("Get(%s) = %+v, %v, want %+v, %v", id, got, ok, want, wok)
		}
	}
}

func TestAgainstOracle(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			for seed := range uint64(60) {
				rng := rand.New(rand.NewPCG(seed, 7))
				capacity := 1 + rng.IntN(8)
				c, err := im.new(capacity)
				if err != nil {
					t.Fatal(err)
				}
				k := &checker{t: t, c: c, o: &oracle{base: capacity}, rng: rng, unit: im.unit, orig: im.origin, span: 60}
				for range 400 {
					k.step()
				}
			}
		})
	}
}
