package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"slotfare/forecast/swf"
)

// oracleImpls are the calendar implementations whose `bench calendar`
// counts must equal the oracle's: both work in continuous time. The slotted
// baseline rounds requests to slots, so its counts may differ by design.
var oracleImpls = []string{"tree", "freelist"}

// buildSlotfare builds the real binary into a temporary directory.
func buildSlotfare(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "slotfare")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// benchLine is one line of `bench calendar` output (API.md).
type benchLine struct {
	Impl         string   `json:"impl"`
	NsPerRequest *float64 `json:"ns_per_request"`
	oracleCounts
}

// TestOracleBenchCalendar runs the real binary's `bench calendar` on the
// hand-worked mini traces and on every shared trace, in both modes, and
// holds the counts of every continuous-time implementation to the hand
// working and to the oracle's golden counts.
func TestOracleBenchCalendar(t *testing.T) {
	bin := buildSlotfare(t)
	type benchCase struct {
		name, trace string
		shared      bool  // trace names a large trace: swf.TestTrace finds it or skips
		capacity    int64 // 0: no --capacity, the trace's default
		mode        string
		want        oracleCounts
	}
	var cases []benchCase
	for _, c := range oracleMiniCases {
		cases = append(cases, benchCase{
			fmt.Sprintf("%s/cap%d/%s", c.trace, c.capacity, c.mode),
			filepath.Join(oracleDir, c.trace), false, c.capacity, c.mode, c.want,
		})
	}
	for _, g := range readOracleGolden(t) {
		c := benchCase{
			fmt.Sprintf("%s/cap%d/%s", g.Trace, g.Capacity, g.Mode),
			g.Trace, true, g.Capacity, g.Mode, g.oracleCounts,
		}
		if g.DefaultCapacity {
			c.capacity = 0
		}
		cases = append(cases, c)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			trace := c.trace
			if c.shared {
				trace = swf.TestTrace(t, c.trace)
			}
			args := []string{"bench", "calendar", "--trace", trace, "--mode", c.mode,
				"--impl", strings.Join(oracleImpls, ","), "--repeat", "1"}
			if c.capacity > 0 {
				args = append(args, "--capacity", strconv.FormatInt(c.capacity, 10))
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("slotfare %v: %v\nstderr: %s", args, err, stderr.String())
			}
			seen := map[string]bool{}
			sc := bufio.NewScanner(&stdout)
			for sc.Scan() {
				var l benchLine
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatalf("output line %q: %v", sc.Text(), err)
				}
				if seen[l.Impl] {
					t.Errorf("impl %q printed twice", l.Impl)
				}
				seen[l.Impl] = true
				if l.NsPerRequest == nil || *l.NsPerRequest < 0 {
					t.Errorf("%s: ns_per_request missing or negative in %q", l.Impl, sc.Text())
				}
				if l.oracleCounts != c.want {
					t.Errorf("%s: bench calendar %+v, oracle %+v", l.Impl, l.oracleCounts, c.want)
				}
			}
			for _, impl := range oracleImpls {
				if !seen[impl] {
					t.Errorf("no output line for impl %q; stdout %q", impl, stdout.String())
				}
			}
			if len(seen) != len(oracleImpls) {
				t.Errorf("impls printed %v, asked for %v", seen, oracleImpls)
			}
		})
	}
}
