package booking

import (
	"math/rand/v2"
	"testing"
)

// TestDemandCountsNegative: Negative finds a counter below zero exactly
// when Fields has one, names it as Fields does, with its value.
func TestDemandCountsNegative(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tally := func() DemandTally {
		x := func() int64 {
			if r.IntN(8) == 0 {
				return -1 - r.Int64N(5)
			}
			return r.Int64N(3)
		}
		return DemandTally{Requests: x(), NodeSeconds: x()}
	}
	tallies := func() map[string]DemandTally {
		if r.IntN(2) == 0 {
			return nil
		}
		m := map[string]DemandTally{}
		for _, k := range []string{"gold", "silver", "1.50"}[:1+r.IntN(3)] {
			m[k] = tally()
		}
		return m
	}
	negatives := 0
	for i := 0; i < 2000; i++ {
		c := DemandCounts{Offered: tally(), Booked: tally(), RefusedClosed: tally(), RefusedFull: tally(),
			BoughtUp: tallies(), Quoted: tallies(), Sold: tallies()}
		any := false
		for _, n := range c.Fields() {
			any = any || n < 0
		}
		name, n, ok := c.Negative()
		if ok != any {
			t.Fatalf("%+v: Negative says %v, Fields has a negative: %v", c, ok, any)
		}
		if !ok {
			continue
		}
		negatives++
		if got := c.Fields()[name]; got != n || n >= 0 {
			t.Fatalf("%+v: Negative names %s = %d, Fields has %d", c, name, n, got)
		}
		if again, _, _ := c.Negative(); again != name {
			t.Fatalf("%+v: Negative names %s, then %s", c, name, again)
		}
	}
	if negatives == 0 {
		t.Fatal("no counts with a negative counter drawn")
	}
}
