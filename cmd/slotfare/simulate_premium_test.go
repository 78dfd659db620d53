package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slotfare/booking/sim"
	"slotfare/forecast/swf"
)

// TestSimulatePremium: `simulate --experiment premium` on the SDSC SP2 trace
// writes one summary row per load and alpha of sim.DefaultPremium, the CSV
// and both charts, and prints the table.
func TestSimulatePremium(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	trace := swf.TestTrace(t, "SDSC-SP2-1998-first4961.swf")
	if code := run([]string{"simulate", "--experiment", "premium", "--trace", trace, "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum sim.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	want := len(sim.DefaultPremium.Loads) * len(sim.DefaultPremium.Alphas)
	if len(sum.Premium) != want {
		t.Fatalf("summary has %d premium rows, want %d", len(sum.Premium), want)
	}
	for _, f := range []string{"premium_price.png", "premium_wait.png"} {
		checkPNG(t, filepath.Join(dir, f))
	}
	csv, err := os.ReadFile(filepath.Join(dir, "premium.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(csv), "\n"); n != want+1 {
		t.Errorf("premium.csv has %d lines, want %d", n, want+1)
	}
	if !strings.Contains(out.String(), "mean premium SU") {
		t.Errorf("no table in the output:\n%s", out.String())
	}
}
