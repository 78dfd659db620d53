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

// TestSimulateDelayPrice: `simulate --experiment delay-price` on the SDSC SP2
// trace writes one summary row per load and alpha of sim.DefaultPremium
// under summary.json's "delay_price", the CSV and both charts, and prints
// the table. Its first name, premium, is still accepted: it reads the trace
// (a missing one is exit 2 naming --trace), and an unknown name beside it
// is reported alone.
func TestSimulateDelayPrice(t *testing.T) {
	trace := swf.TestTrace(t, "SDSC-SP2-1998-first4961.swf")
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", "--experiment", "delay-price", "--trace", trace, "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["delay_price"]; !ok {
		t.Fatalf("summary.json has no \"delay_price\":\n%s", b)
	}
	var sum sim.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	want := len(sim.DefaultPremium.Loads) * len(sim.DefaultPremium.Alphas)
	if len(sum.DelayPrice) != want {
		t.Fatalf("summary has %d delay_price rows, want %d", len(sum.DelayPrice), want)
	}
	for _, f := range []string{"delay_price_premium.png", "delay_price_wait.png"} {
		checkPNG(t, filepath.Join(dir, f))
	}
	csv, err := os.ReadFile(filepath.Join(dir, "delay_price.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(csv), "\n"); n != want+1 {
		t.Errorf("delay_price.csv has %d lines, want %d", n, want+1)
	}
	if !strings.Contains(out.String(), "delay-price:") || !strings.Contains(out.String(), "mean premium SU") {
		t.Errorf("no table in the output:\n%s", out.String())
	}

	for _, tt := range []struct {
		args []string
		name string // the flag or experiment stderr names
	}{
		{[]string{"--experiment", "premium", "--trace", filepath.Join(dir, "none.swf")}, "--trace"},
		{[]string{"--experiment", "premium,bogus"}, `"bogus"`},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"simulate"}, tt.args...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tt.name) || strings.Contains(errb.String(), `"premium"`) {
			t.Errorf("%v: exit %d, stderr %q: want 2 naming %s and not premium", tt.args, code, errb.String(), tt.name)
		}
	}
}
