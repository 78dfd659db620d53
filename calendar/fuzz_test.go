package calendar

import (
	"fmt"
	"slices"
	"testing"

	"slotfare"
)

// FuzzTreeFreeList decodes bytes into an operation sequence and runs it on
// the tree, the free list and the brute-force oracle: all three must answer
// every call identically. A second tree with tiny thresholds and nodes runs
// alongside (the B+-tree and the switches between representations) and
// must agree with the first. The seed corpus runs in every `go test`.
func FuzzTreeFreeList(f *testing.F) {
	f.Add([]byte{0, 1, 5, 2, 0, 0, 3, 9, 3, 1, 2, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 20, 4, 1, 0, 5, 20, 1, 2, 1, 0, 0, 0, 0, 3, 2, 30, 1, 0, 4, 0, 10, 2, 0, 5, 3, 8, 0, 0})
	f.Add([]byte{5, 2, 9, 0, 0, 0, 0, 40, 3, 7, 0, 9, 12, 1, 8, 3, 0, 2, 4, 0, 1, 7, 0, 0, 0, 2, 0, 50, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		const capacity = 4
		tr, _ := NewTree(capacity)
		fl, _ := NewFreeList(capacity)
		tb, _ := newTree(capacity, 5, 2, 3)
		defer func() {
			if t.Failed() {
				return
			}
			p1, _ := tr.Profile(MinTime, MaxTime)
			p2, _ := tb.Profile(MinTime, MaxTime)
			if !slices.Equal(p1, p2) || tr.Len() != tb.Len() {
				t.Fatalf("small and large trees differ: %v / %v", p1, p2)
			}
		}()
		o := &oracle{base: capacity}
		cals := []Calendar{tr, fl}
		for len(data) >= 5 {
			op, a, b, n, id := data[0]%6, int64(data[1]%64), int64(data[2]%64), int(data[3]%7), fmt.Sprint(data[4]%8)
			data = data[5:]
			s, e := a, a+b-8 // may be empty or reversed
			switch op {
			case 0:
				r := Reservation{ID: id, Start: s, End: e, Nodes: n}
				var kinds []slotfare.Kind
				for _, c := range cals {
					err := c.Add(r)
					kinds = append(kinds, kindOrOK(err))
				}
				if k := kindOrOK(tb.Add(r)); k != kinds[0] {
					t.Fatalf("Add(%+v): tree %v, small-node tree %v", r, kinds[0], k)
				}
				want := slotfare.Kind(255)
				if _, dup := o.get(id); e <= s || n < 1 || n > o.maxCapacity() {
					want = slotfare.Invalid
				} else if dup {
					want = slotfare.Conflict
				} else if !o.fits(s, e, n) {
					want = slotfare.NoCapacity
				} else {
					o.add(r)
				}
				if kinds[0] != want || kinds[1] != want {
					t.Fatalf("Add(%+v): tree %v, freelist %v, oracle %v", r, kinds[0], kinds[1], want)
				}
			case 1:
				r1, e1 := tr.Delete(id)
				if r3, e3 := tb.Delete(id); r3 != r1 || kindOrOK(e3) != kindOrOK(e1) {
					t.Fatalf("Delete(%s): %v %v / small-node tree %v %v", id, r1, e1, r3, e3)
				}
				r2, e2 := fl.Delete(id)
				_, ok := o.get(id)
				o.delete(id)
				if r1 != r2 || kindOrOK(e1) != kindOrOK(e2) || (e1 == nil) != ok {
					t.Fatalf("Delete(%s): %v %v / %v %v / oracle %v", id, r1, e1, r2, e2, ok)
				}
			case 2:
				f1, e1 := tr.Fits(s, e, n)
				if f3, e3 := tb.Fits(s, e, n); f3 != f1 || kindOrOK(e3) != kindOrOK(e1) {
					t.Fatalf("Fits(%d,%d,%d): %v %v / small-node tree %v %v", s, e, n, f1, e1, f3, e3)
				}
				f2, e2 := fl.Fits(s, e, n)
				if f1 != f2 || kindOrOK(e1) != kindOrOK(e2) || (e1 == nil && f1 != o.fits(s, e, n)) {
					t.Fatalf("Fits(%d,%d,%d): %v %v / %v %v", s, e, n, f1, e1, f2, e2)
				}
			case 3:
				dur := max(b/4, 1)
				t1, ok1, e1 := tr.NextFree(a, a+b, dur, n)
				if t3, ok3, e3 := tb.NextFree(a, a+b, dur, n); t3 != t1 || ok3 != ok1 || kindOrOK(e3) != kindOrOK(e1) {
					t.Fatalf("NextFree: %d %v %v / small-node tree %d %v %v", t1, ok1, e1, t3, ok3, e3)
				}
				t2, ok2, e2 := fl.NextFree(a, a+b, dur, n)
				if t1 != t2 || ok1 != ok2 || kindOrOK(e1) != kindOrOK(e2) {
					t.Fatalf("NextFree(%d,%d,%d,%d): %d %v %v / %d %v %v", a, a+b, dur, n, t1, ok1, e1, t2, ok2, e2)
				}
				if e1 == nil {
					if wt, wok := o.nextFree(a, a+b, dur, n); wt != t1 || wok != ok1 {
						t.Fatalf("NextFree(%d,%d,%d,%d) = %d %v, oracle %d %v", a, a+b, dur, n, t1, ok1, wt, wok)
					}
				}
			case 4:
				if e <= s {
					e = s + 1
				}
				p1, _ := tr.Profile(s, e)
				p2, _ := fl.Profile(s, e)
				if !slices.Equal(p1, p2) || !slices.Equal(p1, o.profile(s, e)) {
					t.Fatalf("Profile(%d,%d): %v / %v / oracle %v", s, e, p1, p2, o.profile(s, e))
				}
			case 5:
				if e <= s {
					e = s + 1
				}
				e1 := tr.SetCapacity(s, e, n)
				if e3 := tb.SetCapacity(s, e, n); e3 != nil {
					t.Fatal(e3)
				}
				e2 := fl.SetCapacity(s, e, n)
				if e1 != nil || e2 != nil {
					t.Fatalf("SetCapacity(%d,%d,%d): %v / %v", s, e, n, e1, e2)
				}
				o.caps = append(o.caps, capSet{s, e, n})
				if tr.MaxCapacity() != fl.MaxCapacity() || tr.MaxCapacity() != o.maxCapacity() {
					t.Fatalf("MaxCapacity: %d / %d / oracle %d", tr.MaxCapacity(), fl.MaxCapacity(), o.maxCapacity())
				}
			}
		}
	})
}

func kindOrOK(err error) slotfare.Kind {
	if err == nil {
		return 255
	}
	return slotfare.KindOf(err)
}
