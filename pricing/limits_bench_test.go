package pricing

import (
	"fmt"
	"testing"
)

// thirtyDays is the forecast of 30 days of 5-minute slots (8,640 slots) for
// three classes, with Table 7.6's taus times Bologna's bcost (0.80) as fares
// and demand that follows the rate periods: the shape the booking service
// recomputes when a forecast changes.
func thirtyDays(capacity int) [][]ClassDemand {
	const slots = 30 * 24 * 12
	taus := map[string][3]float64{
		"peak":  {3.38, 2.81, 2.25},
		"off":   {2.63, 2.19, 1.75},
		"saver": {1.88, 1.56, 1.25},
	}
	share := map[string][3]float64{ // mean demand as a share of capacity
		"peak":  {0.25, 0.45, 0.6},
		"off":   {0.12, 0.3, 0.5},
		"saver": {0.05, 0.15, 0.8},
	}
	out := make([][]ClassDemand, slots)
	for s := range out {
		day, hour := s/288, (s%288)/12
		period := "saver"
		switch weekend := day%7 >= 5; {
		case !weekend && hour >= 6 && hour < 18:
			period = "peak"
		case !weekend && hour >= 18, weekend && hour >= 6 && hour < 18:
			period = "off"
		}
		wobble := 1 + 0.1*float64(s%37)/37 // no two neighbouring slots alike
		cs := make([]ClassDemand, 3)
		for j := range cs {
			mean := share[period][j] * float64(capacity) * wobble
			cs[j] = ClassDemand{Fare: taus[period][j] * 0.80, Mean: mean, SD: 0.3 * mean}
		}
		out[s] = cs
	}
	return out
}

// BenchmarkAllocate30Days recomputes the nested limits of every slot of
// 30 days (one op = 8,640 slots x 3 classes). Target: <= 100 ms per op.
func BenchmarkAllocate30Days(b *testing.B) {
	for _, capacity := range []int{67, 5000} {
		slots := thirtyDays(capacity)
		for _, m := range []LimitMethod{EMSRb, EMSRa, ThesisEMSR, EMSRbMR, BidPrice} {
			b.Run(fmt.Sprintf("%s/C=%d", m, capacity), func(b *testing.B) {
				for b.Loop() {
					for _, cs := range slots {
						if _, err := Allocate(m, capacity, cs); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
