package sim_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking/sim"
)

// tinyJob is a request on a grid of hour-long slots.
type tinyJob struct {
	first, last  int // the window: slots first..last-1
	slots, nodes int
	value        int // per node-slot
}

// bruteForce is the best revenue of any schedule of jobs on capacity
// nodes over slots slots: each job rejected or run whole at a start inside
// its window, capacity held in every slot.
func bruteForce(jobs []tinyJob, capacity, slots int) int {
	used := make([]int, slots)
	best := 0
	var try func(i, revenue int)
	try = func(i, revenue int) {
		if i == len(jobs) {
			best = max(best, revenue)
			return
		}
		try(i+1, revenue)
		j := jobs[i]
		for s := j.first; s+j.slots <= j.last; s++ {
			fits := true
			for t := s; t < s+j.slots; t++ {
				fits = fits && used[t]+j.nodes <= capacity
			}
			if !fits {
				continue
			}
			for t := s; t < s+j.slots; t++ {
				used[t] += j.nodes
			}
			try(i+1, revenue+j.value*j.nodes*j.slots)
			for t := s; t < s+j.slots; t++ {
				used[t] -= j.nodes
			}
		}
	}
	try(0, 0)
	return best
}

func requests(jobs []tinyJob, start time.Time) []sim.Request {
	var out []sim.Request
	for _, j := range jobs {
		out = append(out, sim.Request{EarliestStart: start.Add(time.Duration(j.first) * time.Hour), LatestEnd: start.Add(time.Duration(j.last) * time.Hour),
			Seconds: int64(j.slots) * 3600, Nodes: j.nodes, Ceiling: float64(j.value) / 3600})
	}
	return out
}

// TestHindsightBoundAgainstBruteForce: on 300 random tiny instances the
// bound is never below the best schedule found by trying every one; with
// unit jobs (one node, one slot), where the relaxation is exact, it equals
// it (less the half cent per request it adds for the rounding of charges).
func TestHindsightBoundAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	start := sim.DefaultStart
	for n := range 300 {
		unit := n%3 == 0
		capacity, slots := 1+rng.IntN(3), 3+rng.IntN(4)
		var jobs []tinyJob
		for range 2 + rng.IntN(4) {
			j := tinyJob{slots: 1 + rng.IntN(3), nodes: 1 + rng.IntN(capacity), value: 1 + rng.IntN(9)}
			if unit {
				j.slots, j.nodes = 1, 1
			}
			j.slots = min(j.slots, slots)
			j.first = rng.IntN(slots - j.slots + 1)
			j.last = j.first + j.slots + rng.IntN(slots-j.first-j.slots+1)
			jobs = append(jobs, j)
		}
		w := sim.Window{Start: start, End: start.Add(time.Duration(slots) * time.Hour)}
		bound := sim.HindsightBound(requests(jobs, start), capacity, w, time.Hour)
		exact := decimal.NewFromInt(int64(bruteForce(jobs, capacity, slots)))
		if bound.LessThan(exact) {
			t.Fatalf("instance %d (capacity %d, %d slots, jobs %+v): bound %s below the best schedule's %s", n, capacity, slots, jobs, bound, exact)
		}
		margin := decimal.NewFromFloat(0.005 * float64(len(jobs))).Add(decimal.RequireFromString("0.01"))
		if unit && bound.Sub(exact).GreaterThan(margin) {
			t.Fatalf("instance %d (capacity %d, %d slots, unit jobs %+v): bound %s, best schedule %s: want equal", n, capacity, slots, jobs, bound, exact)
		}
	}
}

// TestHindsightBoundCountsTheWindow: a request whose window runs past the
// end earns in the bound only the node-seconds it can hold inside, as the
// simulator's in-window revenue counts it pro rata; one outside earns
// nothing.
func TestHindsightBoundCountsTheWindow(t *testing.T) {
	start := sim.DefaultStart
	w := sim.Window{Start: start, End: start.Add(4 * time.Hour)}
	jobs := []tinyJob{{first: 3, last: 6, slots: 3, nodes: 1, value: 10}, {first: 4, last: 6, slots: 1, nodes: 1, value: 100}}
	got := sim.HindsightBound(requests(jobs, start), 1, w, time.Hour)
	if want := decimal.RequireFromString("10.01"); !got.Equal(want) {
		t.Fatalf("bound %s, want %s (one in-window hour at 10, and the half cent of rounding)", got, want)
	}
}
