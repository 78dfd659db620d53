package inventory

import (
	"math/rand/v2"
	"testing"
)

// TestCapacitiesSameAsArray sets random pieces on the step function and
// on a plain array of instants: the values, and whether each set changed
// anything, agree, and the steps stay canonical (no two neighbours with
// one value), so that a set of what is in force reports no change.
func TestCapacitiesSameAsArray(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		c := newCapacities(5)
		// arr[i] is the capacity over [i, i+1), its last over [40, MaxTime).
		var arr [41]int
		for i := range arr {
			arr[i] = 5
		}
		for range 60 {
			from := int64(rng.IntN(len(arr)))
			to, end := MaxTime, len(arr) // to the end of time
			if from < 40 && rng.IntN(8) > 0 {
				to = from + 1 + int64(rng.IntN(40-int(from)))
				end = int(to)
			}
			n := rng.IntN(4) + 3
			want := false
			for i := int(from); i < end; i++ {
				want = want || arr[i] != n
				arr[i] = n
			}
			if got := c.set(from, to, n); got != want {
				t.Fatalf("seed %d: set(%d, %d, %d) changed = %v, want %v", seed, from, to, n, got, want)
			}
			for i, v := range arr {
				if got := c.vals[c.at(int64(i))]; got != v {
					t.Fatalf("seed %d: capacity at %d = %d, want %d (%v %v)", seed, i, got, v, c.times, c.vals)
				}
			}
			if c.times[0] != MinTime || c.vals[c.at(-1)] != 5 {
				t.Fatalf("seed %d: before 0: %v %v", seed, c.times, c.vals)
			}
			for i := 1; i < len(c.vals); i++ {
				if c.vals[i] == c.vals[i-1] || c.times[i] <= c.times[i-1] {
					t.Fatalf("seed %d: not canonical: %v %v", seed, c.times, c.vals)
				}
			}
		}
	}
}
