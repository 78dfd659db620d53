package calendar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestProfileIntoIsProfile: ProfileInto answers Profile's steps into a
// reused buffer, whatever it held (shorter, longer, with steps that would
// merge with the first one answered), on the array and on the B+-tree.
func TestProfileIntoIsProfile(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 23))
		c, _ := newTree(8, 16, 4, 4) // tiny thresholds: the B+-tree too
		for i := range 10 + rng.IntN(60) {
			s := rng.Int64N(400)
			_ = c.Add(Reservation{ID: fmt.Sprint(i), Start: s, End: s + 1 + rng.Int64N(60), Nodes: 1 + rng.IntN(8)})
		}
		buf := make([]Step, rng.IntN(40), 40)
		for i := range buf {
			buf[i] = Step{Start: -1, End: 0, Free: rng.IntN(9)} // ends where the window starts
		}
		for range 5 {
			from := rng.Int64N(450)
			to := from + 1 + rng.Int64N(200)
			want, err := c.Profile(from, to)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.ProfileInto(buf, from, to)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("seed %d [%d,%d) (big %v): ProfileInto = %v (%v), Profile = %v", seed, from, to, c.big != nil, got, err, want)
			}
			buf = got
		}
	}
	c, _ := NewTree(4)
	if _, err := c.ProfileInto(nil, 10, 10); err == nil {
		t.Error("ProfileInto of an empty window was answered")
	}
}

// BenchmarkProfile reads a 2-hour window's free profile of a tree holding
// n reservations anew (Profile) and into a buffer kept from one read to
// the next (ProfileInto, as an offer query reads each group's).
func BenchmarkProfile(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		rng := rand.New(rand.NewPCG(9, uint64(n)))
		c, _ := NewTree(benchCapacity)
		book(b, c, n, rng)
		from := make([]int64, 1024)
		for i := range from {
			from[i] = rng.Int64N(horizon(n) - 2*3600)
		}
		var buf []Step
		for _, into := range []bool{false, true} {
			b.Run(fmt.Sprintf("live=%d/into=%v", n, into), func(b *testing.B) {
				i, steps := 0, 0
				for b.Loop() {
					var err error
					if into {
						buf, err = c.ProfileInto(buf, from[i&1023], from[i&1023]+2*3600)
					} else {
						buf, err = c.Profile(from[i&1023], from[i&1023]+2*3600)
					}
					if err != nil {
						b.Fatal(err)
					}
					steps += len(buf)
					i++
				}
				b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
			})
		}
	}
}
