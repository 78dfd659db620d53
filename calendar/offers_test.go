package calendar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slotfare"
)

// example builds the calendar used by the table tests: capacity 4 and
//
//	[0,10) 4 free | [10,20) 1 free | [20,30) 3 free | [30,40) 0 free | [40,..) 4 free
func example(t *testing.T) Calendar {
	t.Helper()
	c, err := New(4)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Reservation{
		{ID: "a", Start: 10, End: 20, Nodes: 3},
		{ID: "b", Start: 20, End: 30, Nodes: 1},
		{ID: "c", Start: 30, End: 40, Nodes: 4},
	} {
		if err := c.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestOffersTable(t *testing.T) {
	cases := []struct {
		s    Strategy
		q    Query
		want []Offer
	}{
		// OSP: the tightest step with enough nodes first ([20,30) with 3
		// free for 2 nodes), widened left would hit [10,20) (1 free), so
		// right: [30,40) is full; 10 < 15, not a solution; next tightest is
		// [0,10) (4 free), then [40,60).
		{OSP, Query{0, 60, 15, 2}, []Offer{{40, 55, 2, true}, {20, 30, 2, false}, {0, 10, 2, false}}},
		// A duration that fits the tightest step exactly.
		{OSP, Query{0, 60, 10, 3}, []Offer{{20, 30, 3, true}}},
		// One node: the tightest step is [10,20) itself.
		{OSP, Query{0, 60, 5, 1}, []Offer{{10, 15, 1, true}}},
		// Nodes "any": no solution, every step with a node free, tightest
		// first, as many nodes as the whole period keeps free.
		{OSP, Query{0, 60, 0, 0}, []Offer{{10, 20, 1, false}, {20, 30, 3, false}, {0, 10, 4, false}, {40, 60, 4, false}}},
		// One node, 25 long: the tightest step [10,20) widens left to
		// [0,10) (20 long), then right to [20,30); the solution keeps all of
		// the anchor and starts as early as it can.
		{OSP, Query{0, 70, 25, 1}, []Offer{{0, 25, 1, true}}},
		{FirstFit, Query{0, 60, 5, 2}, []Offer{{0, 5, 2, true}, {20, 25, 2, false}, {40, 45, 2, false}}},
		{FirstFit, Query{0, 60, 12, 2}, []Offer{{40, 52, 2, true}, {0, 10, 2, false}, {20, 30, 2, false}}},
		{BestFit, Query{0, 60, 10, 2}, []Offer{{0, 10, 2, true}, {20, 30, 2, false}, {40, 50, 2, false}}},
		{BestFit, Query{0, 55, 12, 1}, []Offer{{40, 52, 1, true}, {0, 12, 1, false}}},
		// [0,10) and [20,30) both leave 4 over: the earlier wins; the short
		// gap [40,45) comes last.
		{BestFit, Query{0, 45, 6, 3}, []Offer{{0, 6, 3, true}, {20, 26, 3, false}, {40, 45, 3, false}}},
		{FirstFit, Query{30, 40, 5, 1}, nil},
	}
	for i, tc := range cases {
		c := example(t)
		got, err := Offers(c, tc.q, tc.s, 10)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("case %d: Offers(%+v, %s) = %v, want %v", i, tc.q, tc.s, got, tc.want)
		}
	}
}

func TestOffersErrors(t *testing.T) {
	c := example(t)
	cases := []struct {
		q     Query
		s     Strategy
		max   int
		field string
	}{
		{Query{10, 10, 1, 1}, OSP, 5, "end"},
		{Query{10, 5, 1, 1}, OSP, 5, "end"},
		{Query{0, 50, -1, 1}, OSP, 5, "duration"},
		{Query{0, 50, 1, -1}, OSP, 5, "nodes"},
		{Query{0, 50, 1, 5}, OSP, 5, "nodes"},
		{Query{0, 50, 1, 1}, "worst-fit", 5, "strategy"},
		{Query{0, 50, 1, 1}, OSP, 0, "max"},
	}
	for _, tc := range cases {
		_, err := Offers(c, tc.q, tc.s, tc.max)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tc.field {
			t.Errorf("Offers(%+v, %q, %d) = %v, want Invalid on %s", tc.q, tc.s, tc.max, err, tc.field)
		}
	}
	if s, err := ParseStrategy(""); err != nil || s != OSP {
		t.Errorf("ParseStrategy(\"\") = %q, %v; want osp", s, err)
	}
}

// TestOffersProperties checks, on random calendars, what every strategy
// promises: offers fit, lie in the window, never exceed what was asked, and
// a solution comes first exactly when some placement meets the query.
func TestOffersProperties(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 11))
		capacity := 1 + rng.IntN(6)
		c, _ := New(capacity)
		fl, _ := NewFreeList(capacity)
		for i := range 15 {
			s := rng.Int64N(100)
			r := Reservation{ID: fmt.Sprint(i), Start: s, End: s + 1 + rng.Int64N(20), Nodes: 1 + rng.IntN(capacity)}
			if c.Add(r) == nil {
				if err := fl.Add(r); err != nil {
					t.Fatal(err)
				}
			}
		}
		es := rng.Int64N(80)
		q := Query{EarliestStart: es, LatestEnd: es + 1 + rng.Int64N(60), Duration: rng.Int64N(25), Nodes: rng.IntN(capacity + 1)}
		for _, s := range []Strategy{OSP, FirstFit, BestFit} {
			offers, err := Offers(c, q, s, 50)
			if err != nil {
				t.Fatal(err)
			}
			// Offers reads the calendar through the interface only: the
			// free list must get the very same answer.
			if other, err := Offers(fl, q, s, 50); err != nil || !slices.Equal(other, offers) {
				t.Fatalf("seed %d %s: freelist offers %v (%v), tree %v", seed, s, other, err, offers)
			}
			hasSol := false
			if q.Duration > 0 && q.Nodes > 0 && q.Duration <= q.LatestEnd-q.EarliestStart {
				_, hasSol, _ = c.NextFree(q.EarliestStart, q.LatestEnd-q.Duration, q.Duration, q.Nodes)
			}
			for i, o := range offers {
				ok, err := c.Fits(o.Start, o.End, o.Nodes)
				if err != nil || !ok {
					t.Fatalf("seed %d %s: offer %+v does not fit (%v)", seed, s, o, err)
				}
				if o.Start < q.EarliestStart || o.End > q.LatestEnd {
					t.Fatalf("seed %d %s: offer %+v outside the window %+v", seed, s, o, q)
				}
				if q.Duration > 0 && o.End-o.Start > q.Duration || q.Nodes > 0 && o.Nodes != q.Nodes {
					t.Fatalf("seed %d %s: offer %+v exceeds the query %+v", seed, s, o, q)
				}
				if o.Solution != (hasSol && i == 0) {
					t.Fatalf("seed %d %s: offer %d %+v solution flag wrong (solution exists: %v)", seed, s, i, o, hasSol)
				}
				if o.Solution && o.End-o.Start != q.Duration {
					t.Fatalf("seed %d %s: solution %+v is not %d long", seed, s, o, q.Duration)
				}
			}
			if hasSol && len(offers) == 0 {
				t.Fatalf("seed %d %s: a solution exists but no offer", seed, s)
			}
		}
	}
}
