package calendar

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIDTable drives the tree's id table and a Go map with the same random
// inserts and deletes, through growth and shrinking.
func TestIDTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tab := newIDTable()
	ref := map[string]Reservation{}
	for step := range 200000 {
		// Grow to a few thousand live ids, then drain, twice.
		phase := step / 50000
		id := fmt.Sprint(rng.IntN(4000))
		h := tab.hash(id)
		i, ok := tab.find(id, h)
		if _, want := ref[id]; ok != want {
			t.Fatalf("step %d: find(%s) = %v, want %v", step, id, ok, want)
		}
		insert := phase%2 == 0 && rng.IntN(3) > 0 || phase%2 == 1 && rng.IntN(3) == 0
		switch {
		case ok && !insert:
			if tab.slots[i].r != ref[id] {
				t.Fatalf("step %d: slot holds %+v, want %+v", step, tab.slots[i].r, ref[id])
			}
			tab.removeAt(i)
			delete(ref, id)
		case !ok && insert:
			r := Reservation{ID: id, Start: int64(step), End: int64(step) + 1, Nodes: step%7 + 1}
			tab.insert(i, h, r)
			ref[id] = r
		}
		if tab.n != len(ref) {
			t.Fatalf("step %d: n = %d, want %d", step, tab.n, len(ref))
		}
	}
	for id, r := range ref {
		if got, ok := tab.get(id); !ok || got != r {
			t.Fatalf("get(%s) = %+v, %v; want %+v", id, got, ok, r)
		}
	}
}
