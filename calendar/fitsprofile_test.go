package calendar

import (
	"math/rand/v2"
	"testing"
)

// TestFitsProfileIsFits: on random trees with reservations and capacities
// that vary, FitsProfile over a window's profile answers what Fits answers
// for every interval inside the window.
func TestFitsProfileIsFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 200 {
		c, err := NewTree(8)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			s := rng.Int64N(200)
			if err := c.SetCapacity(s, s+1+rng.Int64N(60), rng.IntN(12)); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 25 {
			s := rng.Int64N(200)
			r := Reservation{ID: string(rune('a'+i%26)) + string(rune('A'+round%26)), Start: s, End: s + 1 + rng.Int64N(40), Nodes: 1 + rng.IntN(4)}
			if ok, _ := c.Fits(r.Start, r.End, r.Nodes); ok {
				if err := c.Add(r); err != nil {
					t.Fatal(err)
				}
			}
		}
		from := rng.Int64N(100)
		to := from + 1 + rng.Int64N(150)
		steps, err := c.Profile(from, to)
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			s := from + rng.Int64N(to-from)
			e := s + 1 + rng.Int64N(to-s)
			n := 1 + rng.IntN(c.MaxCapacity())
			want, err := c.Fits(s, e, n)
			if err != nil {
				t.Fatal(err)
			}
			if got := FitsProfile(steps, s, e, n); got != want {
				t.Fatalf("round %d: FitsProfile([%d,%d), %d) = %v, Fits = %v; profile %v", round, s, e, n, got, want, steps)
			}
		}
		if FitsProfile(steps, from-1, from+1, 1) && from > 0 {
			t.Fatalf("an interval beyond the profile's window fits")
		}
	}
}
