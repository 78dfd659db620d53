package sim_test

import (
	"testing"

	"slotfare/booking/sim"
)

// TestLongerTimeoutsLowerAcceptance: seed 003 Sec. 4.5, Fig. 9: with many
// rejecters a longer hold timeout lowers the acceptance rate of the
// accepters (their holds block the nodes until the timeout expires), and
// the more rejecters the lower it is; with no rejecters the timeout does
// not matter.
func TestLongerTimeoutsLowerAcceptance(t *testing.T) {
	o := sim.DefaultTimeouts
	o.Seed, o.Accepters, o.Timeouts, o.Rejecters = 1, 400, []int{10, 800}, []int{0, 5000}
	rows, err := sim.Timeouts(bg, o, 2)
	if err != nil {
		t.Fatal(err)
	}
	alpha := map[[2]int]float64{}
	for _, r := range rows {
		t.Logf("%+v", r)
		alpha[[2]int{r.RejectersPer1000, r.TimeoutSlots}] = r.AcceptanceRate
	}
	if short, long := alpha[[2]int{5000, 10}], alpha[[2]int{5000, 800}]; !(long < short) {
		t.Errorf("5 rejecters per accepter: alpha %.4f at a timeout of 10 slots, %.4f at 800: want lower with the longer timeout", short, long)
	}
	if a, b := alpha[[2]int{0, 800}], alpha[[2]int{5000, 800}]; !(b < a) {
		t.Errorf("timeout 800: alpha %.4f without rejecters, %.4f with 5 per accepter: want lower with rejecters", a, b)
	}
	if a, b := alpha[[2]int{0, 10}], alpha[[2]int{0, 800}]; a != b {
		t.Errorf("no rejecters: alpha %.4f at 10 slots, %.4f at 800: want the same", a, b)
	}
}
