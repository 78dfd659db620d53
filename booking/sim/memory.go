package sim

import (
	"math"
	"slices"
	"time"

	"slotfare"
	"slotfare/booking/config"
)

// What a run holds in memory grows with its bookings (each a record with
// its terms, postings, events and demand counts in the run's store, kept
// to the end for the accounting) and, much less, with its arrivals. The
// figures are the peak heap of runs of the built-in scenarios with the
// collector at its default (GOGC=100), docs/simulation.md "Memory".
const (
	// RunBaseBytes is a run's heap before its arrivals: the service, its
	// resources' calendars over the horizon, the store.
	RunBaseBytes = 32 << 20
	// ArrivalBytes is a run's heap per arrival, booked or not.
	ArrivalBytes = 512
	// BookingBytes is a run's heap per booking (cancellations and
	// no-shows included: their postings and events).
	BookingBytes = 21 << 10
	// fitFactor is how many more bookings fit in the capacity than the
	// mean job's size says: the short jobs fit where the long do not
	// (3.2 on the 14-day eu-datagrid: 25,515 bookings where 8,000 mean
	// jobs fill every node).
	fitFactor = 3
	// resaleFactor is how many more bookings a run with cancellations and
	// no-shows makes: what is cancelled is sold again (1.73 on the same
	// run).
	resaleFactor = 1.75
)

// ExpectedArrivals is the mean number of arrivals of s over its days
// (each level's rate integrated over its first resource's rate periods,
// and the jobs its traces submit within the days), and the node-seconds
// they ask (mean runtime, scaled to the level's first resource, times
// nodes). It draws nothing, so it is cheap however large the scenario.
func ExpectedArrivals(s *Scenario) (arrivals, asked float64, err error) {
	end := s.Start.Add(time.Duration(s.Days) * 24 * time.Hour)
	for _, l := range s.Levels {
		rc, ok := resourceOf(s, l.Resources[0])
		if !ok {
			return 0, 0, slotfare.Errorf("sim.ExpectedArrivals", "resources", "the scenario has no resource %q", l.Resources[0])
		}
		cal, err := rc.RateCalendar()
		if err != nil {
			return 0, 0, err
		}
		pieces, err := cal.Split(s.Start, end)
		if err != nil {
			return 0, 0, err
		}
		scale := 1.0
		if r, ok := s.Ratings[rc.ID]; ok && l.Rating > 0 {
			scale = l.Rating / r
		}
		for _, pc := range pieces {
			n := l.Rates[pc.Period] * pc.End.Sub(pc.Start).Seconds()
			arrivals += n
			asked += n * l.MeanRuntime * scale * float64(min(l.Nodes, rc.Nodes))
		}
	}
	for _, tr := range s.Traces {
		for _, j := range tr.Jobs {
			if s.Start.Add(time.Duration(j.Submit) * time.Second).Before(end) {
				arrivals++
				asked += float64(j.Runtime) * float64(j.Nodes)
			}
		}
	}
	return arrivals, asked, nil
}

// RunBytes is the peak heap a run of s is expected to reach with the
// collector at its default. The bookings are the arrivals, or where they
// ask more than the resources hold over the days, the share of them that
// fits (fitFactor); a run with cancellations and no-shows (cns) sells
// what is cancelled again (resaleFactor).
func RunBytes(s *Scenario, cns bool) (int64, error) {
	arrivals, asked, err := ExpectedArrivals(s)
	if err != nil {
		return 0, err
	}
	capacity := 0.0
	for _, rc := range s.Config.Resources {
		capacity += float64(rc.Nodes) * float64(s.Days) * 86400
	}
	bookings := arrivals
	if asked > 0 {
		bookings = math.Min(arrivals, fitFactor*arrivals*capacity/asked)
	}
	if cns {
		bookings = math.Min(resaleFactor*bookings, arrivals)
	}
	return RunBaseBytes + int64(arrivals*ArrivalBytes+bookings*BookingBytes), nil
}

// NeedBytes is the heap specs are expected to reach run workers at a
// time: the sum of the workers largest RunBytes.
func NeedBytes(specs []RunSpec, workers int) (int64, error) {
	sizes := make([]int64, 0, len(specs))
	for _, sp := range specs {
		b, err := RunBytes(sp.Scenario, sp.Options.Cancel || sp.Options.NoShow)
		if err != nil {
			return 0, err
		}
		sizes = append(sizes, b)
	}
	slices.Sort(sizes)
	var need int64
	for i := len(sizes) - 1; i >= 0 && i >= len(sizes)-workers; i-- {
		need += sizes[i]
	}
	return need, nil
}

func resourceOf(s *Scenario, id string) (config.ResourceConfig, bool) {
	for _, rc := range s.Config.Resources {
		if rc.ID == id {
			return rc, true
		}
	}
	return config.ResourceConfig{}, false
}
