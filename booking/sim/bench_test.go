package sim_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"slotfare/booking/sim"
)

// BenchmarkRunDay is one simulated Monday of the built-in eu-datagrid
// (about 30,000 arrivals on ten resources), the unit of the rm and
// overbooking experiments' cost: go test -run '^$' -bench RunDay
// -benchtime 3x ./booking/sim/ (docs/benchmarks.md).
func BenchmarkRunDay(b *testing.B) {
	s, err := sim.EUDataGrid(1)
	if err != nil {
		b.Fatal(err)
	}
	arrivals := 0
	for b.Loop() {
		r, err := sim.Run(bg, s, sim.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		arrivals = sumArrivals(r.Streams)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(arrivals), "ns/arrival")
}

// BenchmarkHindsightBound is the bound on RAL alone over 14 days at ten
// times its capacity (the policies experiment's largest instance).
func BenchmarkHindsightBound(b *testing.B) {
	s, err := sim.EUDataGridPriced(14)
	if err != nil {
		b.Fatal(err)
	}
	alone, err := sim.Alone(s, "RAL")
	if err != nil {
		b.Fatal(err)
	}
	now, err := sim.OfferedLoad(alone, "RAL")
	if err != nil {
		b.Fatal(err)
	}
	if alone, err = alone.Loaded(10 / now); err != nil {
		b.Fatal(err)
	}
	reqs, err := sim.Demand(alone, 1, "RAL", decimal.RequireFromString("3.38"))
	if err != nil {
		b.Fatal(err)
	}
	w := sim.Window{Start: alone.Start, End: alone.Start.AddDate(0, 0, alone.Days)}
	for b.Loop() {
		sim.HindsightBound(reqs, 41, w, sim.BoundBucket)
	}
	b.ReportMetric(float64(len(reqs)), "requests")
}
