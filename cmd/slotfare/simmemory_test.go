package main

import (
	"bytes"
	"strings"
	"testing"

	"slotfare"
	"slotfare/booking/sim"
)

// A sweep that would need more memory than is free is refused before
// anything runs, naming what to change.
func TestSimulateRefusesWhatMemoryCannotHold(t *testing.T) {
	var out, errb bytes.Buffer
	// 366 days of the whole EU DataGrid at ten times its nodes: about
	// 166 GiB, on no machine the tests run on.
	code := run([]string{"simulate", "--experiment", "rm", "--days", "366", "--scale", "10", "--workers", "1"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "--days") || !strings.Contains(errb.String(), "GiB") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("something ran: %q", out.String())
	}
}

func TestFitsMemoryNamesWorkersWhenOneAtATimeFits(t *testing.T) {
	var specs []sim.RunSpec
	for _, days := range []int{14, 14} {
		s, err := sim.EUDataGrid(days)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, sim.RunSpec{Scenario: s})
	}
	one, _ := sim.NeedBytes(specs, 1)
	two, _ := sim.NeedBytes(specs, 2)
	for _, c := range []struct {
		workers int
		free    int64
		field   string // "" = fits
	}{
		{2, two, ""},
		{2, two - 1, "--workers"},
		{1, one, ""},
		{1, one - 1, "--days"},
		{2, one - 1, "--days"},
	} {
		err := fitsMemory(specs, c.workers, c.free)
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%d workers, %d free: %v", c.workers, c.free, err)
		case c.field != "" && (err == nil || slotfare.FieldOf(err) != c.field):
			t.Errorf("%d workers, %d free: %v, want an error naming %s", c.workers, c.free, err, c.field)
		}
	}
}
