package booking

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestDemandKeyAsFormat: DemandKey writes what time.Format writes (RFC
// 3339 to the second in UTC, then the date), in any zone, at any instant,
// and for years outside four digits.
func TestDemandKeyAsFormat(t *testing.T) {
	formatted := func(r DemandRecord) string {
		return r.Instance.UTC().Format(time.RFC3339) + "|" + r.Class + "|" + r.Day.UTC().Format(time.DateOnly)
	}
	zone := time.FixedZone("X", -5*3600-1800)
	rng := rand.New(rand.NewPCG(1, 2))
	times := []time.Time{{}, time.Date(9999, 12, 31, 23, 59, 59, 999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 29, 1, 30, 0, 5, zone)}
	for range 2000 {
		times = append(times, time.Unix(rng.Int64N(1<<36)-1<<35, rng.Int64N(1e9)).In(zone))
	}
	for i, in := range times {
		r := DemandRecord{Class: "budget", Instance: in, Day: times[(i*7)%len(times)]}
		if got, want := r.DemandKey(), formatted(r); got != want {
			t.Fatalf("%v, %v: key %q, want %q", r.Instance, r.Day, got, want)
		}
	}
}
