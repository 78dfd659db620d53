package sim

import (
	"testing"
)

// The peaks of heap measured on runs of the built-in scenarios with
// GOGC=100 (a goroutine reading runtime.MemStats.HeapAlloc every 20 ms;
// docs/simulation.md "Memory"): the estimate must stay near them, never
// far below (the guard would let a sweep run out of memory) nor so far
// above that it refuses what fits.
func TestRunBytesNearMeasuredPeaks(t *testing.T) {
	priced, err := EUDataGridPriced(14)
	if err != nil {
		t.Fatal(err)
	}
	specs, _, err := PolicySpecs(priced, []string{"RAL"}, []float64{1, 10}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]RunSpec{}
	for _, sp := range specs {
		byName[sp.Name] = sp
	}
	grid, err := EUDataGrid(14)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		s        *Scenario
		cns      bool
		measured float64 // MB
	}{
		{"RAL alone, load 1, emsr-b", byName["RAL load 1 emsr-b"].Scenario, false, 53},
		{"RAL alone, load 10, emsr-b", byName["RAL load 10 emsr-b"].Scenario, false, 89},
		{"eu-datagrid, 14 days", grid, false, 561},
		{"eu-datagrid, 14 days, CNS", grid, true, 1131},
	} {
		b, err := RunBytes(c.s, c.cns)
		if err != nil {
			t.Fatal(err)
		}
		est := float64(b) / 1e6
		t.Logf("%s: %.0f MB estimated, %.0f measured", c.name, est, c.measured)
		if est < 0.85*c.measured || est > 3.5*c.measured {
			t.Errorf("%s: estimated %.0f MB, measured %.0f MB", c.name, est, c.measured)
		}
	}
}

func TestRunBytesGrowsWithDaysAndLoad(t *testing.T) {
	short, _ := EUDataGrid(7)
	long, _ := EUDataGrid(14)
	a, _ := RunBytes(short, false)
	b, _ := RunBytes(long, false)
	if !(b > a) {
		t.Errorf("14 days %d bytes, 7 days %d", b, a)
	}
	heavy, err := long.Loaded(10)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := RunBytes(heavy, false)
	if !(c > b) {
		t.Errorf("ten times the arrivals %d bytes, once %d", c, b)
	}
	cns, _ := RunBytes(long, true)
	if !(cns > b) {
		t.Errorf("with CNS %d bytes, without %d", cns, b)
	}
}

func TestNeedBytesSumsTheRunsAtOnce(t *testing.T) {
	var specs []RunSpec
	var sizes []int64
	for _, days := range []int{3, 14, 7} {
		s, err := EUDataGrid(days)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := RunBytes(s, false)
		specs = append(specs, RunSpec{Scenario: s})
		sizes = append(sizes, b)
	}
	for _, c := range []struct {
		workers int
		want    int64
	}{{1, sizes[1]}, {2, sizes[1] + sizes[2]}, {3, sizes[0] + sizes[1] + sizes[2]}, {8, sizes[0] + sizes[1] + sizes[2]}} {
		got, err := NeedBytes(specs, c.workers)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%d workers: %d bytes, want %d", c.workers, got, c.want)
		}
	}
}
