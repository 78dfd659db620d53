package pricing

import (
	"math/rand/v2"
	"testing"
)

func TestEarliestVacatedMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	found := 0
	for round := range 3000 {
		capacity := 1 + rng.Int64N(12)
		origin := rng.Int64N(50)
		f := newFreeProfile(origin, capacity)
		for range rng.IntN(25) {
			r := 1 + rng.Int64N(60)
			n := 1 + rng.Int64N(capacity)
			st := f.earliest(origin+rng.Int64N(200), r, n)
			f.occupy(st, st+r, n)
		}
		var vac []interval
		for range rng.IntN(5) {
			a := origin + rng.Int64N(300)
			vac = addInterval(vac, a, a+1+rng.Int64N(40))
		}
		lb := origin + rng.Int64N(100)
		v := lb + rng.Int64N(250)
		r, n := 1+rng.Int64N(80), 1+rng.Int64N(capacity)
		got, k, ok := f.earliestVacated(vac, lb, v, r, n)
		// The earliest fit in [lb, v), found by a plain search.
		want, wok := f.earliestBefore(lb, v, r, n)
		meets := false
		for _, iv := range vac {
			meets = meets || (wok && iv.a < min(want+r, v) && iv.b > want)
		}
		if meets && (!ok || got != want) {
			t.Fatalf("round %d: earliestVacated(%v, lb %d, v %d, r %d, n %d) = %d %v, want the earliest fit %d\nsteps %v", round, vac, lb, v, r, n, got, ok, want, f.steps)
		}
		if !wok && ok {
			t.Fatalf("round %d: earliestVacated(%v, lb %d, v %d, r %d, n %d) = %d with no fit in [lb, v)\nsteps %v", round, vac, lb, v, r, n, got, f.steps)
		}
		if ok {
			if got < want || got >= v || !f.fits(got, r, n) {
				t.Fatalf("round %d: earliestVacated(%v, lb %d, v %d, r %d, n %d) = %d, not a fit in [%d, %d)\nsteps %v", round, vac, lb, v, r, n, got, want, v, f.steps)
			}
			if k != f.index(got) {
				t.Fatalf("round %d: step %d returned for start %d, want %d", round, k, got, f.index(got))
			}
		}
		if meets {
			found++
		}
	}
	if found < 300 {
		t.Fatalf("only %d of 3000 rounds have an earliest fit meeting a vacated interval: the test exercises too little", found)
	}
}
