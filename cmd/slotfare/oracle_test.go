package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"slotfare/forecast/swf"
)

// update rewrites testdata/oracle/bench_counts.json from the oracle
// replay (oracle_replay_test.go) over the shared traces.
var update = flag.Bool("update", false, "rewrite testdata/oracle/bench_counts.json from the oracle replay")

const (
	oracleDir         = "testdata/oracle"
	oracleGolden      = "testdata/oracle/bench_counts.json"
	oracleModeRigid   = "rigid"
	oracleModeSuggest = "suggest"
)

// oracleMiniCase is one hand-worked expectation for a mini trace under
// testdata/oracle; the working is in the trace's header comments.
type oracleMiniCase struct {
	trace    string
	capacity int64 // 0: the trace's default (MaxProcs, else MaxNodes)
	mode     string
	want     oracleCounts
}

var oracleMiniCases = []oracleMiniCase{
	{"basic.swf", 0, oracleModeRigid, oracleCounts{Requests: 6, Accepted: 4, Suggested: 0, Rejected: 2}},
	{"basic.swf", 0, oracleModeSuggest, oracleCounts{Requests: 6, Accepted: 3, Suggested: 3, Rejected: 0}},
	{"basic.swf", 20, oracleModeRigid, oracleCounts{Requests: 6, Accepted: 5, Suggested: 0, Rejected: 1}},
	{"basic.swf", 20, oracleModeSuggest, oracleCounts{Requests: 6, Accepted: 4, Suggested: 2, Rejected: 0}},
	{"horizon.swf", 0, oracleModeRigid, oracleCounts{Requests: 6, Accepted: 3, Suggested: 0, Rejected: 3}},
	{"horizon.swf", 0, oracleModeSuggest, oracleCounts{Requests: 6, Accepted: 3, Suggested: 2, Rejected: 1}},
	{"order.swf", 0, oracleModeRigid, oracleCounts{Requests: 4, Accepted: 2, Suggested: 0, Rejected: 2}},
	{"order.swf", 0, oracleModeSuggest, oracleCounts{Requests: 4, Accepted: 2, Suggested: 2, Rejected: 0}},
}

// TestOracleMiniTraces holds the oracle to the counts worked out by hand in
// the mini traces' comments, and checks the capacity each header yields.
func TestOracleMiniTraces(t *testing.T) {
	wantCap := map[string]int64{"basic.swf": 10, "horizon.swf": 10, "order.swf": 4}
	for _, c := range oracleMiniCases {
		name := fmt.Sprintf("%s/cap%d/%s", c.trace, c.capacity, c.mode)
		t.Run(name, func(t *testing.T) {
			tr, err := readOracleTrace(filepath.Join(oracleDir, c.trace))
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.capacity(); got != wantCap[c.trace] {
				t.Errorf("default capacity %d, want %d", got, wantCap[c.trace])
			}
			capacity := c.capacity
			if capacity == 0 {
				capacity = tr.capacity()
			}
			got, err := oracleReplay(tr, capacity, c.mode, oracleHorizon)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("oracle %+v, hand-worked %+v", got, c.want)
			}
		})
	}
}

// TestOracleRejectsUndefinedInput checks that the oracle refuses what the
// rule does not define instead of guessing.
func TestOracleRejectsUndefinedInput(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"wait-2.swf":   "; MaxProcs: 4\n1 0 -2 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
		"fraction.swf": "; MaxProcs: 4\n1 0 0 10.5 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
		"short.swf":    "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readOracleTrace(p); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
	if _, err := oracleReplay(oracleTrace{}, 0, oracleModeRigid, oracleHorizon); err == nil {
		t.Error("capacity 0 replayed without error")
	}
	if _, err := oracleReplay(oracleTrace{}, 4, "elastic", oracleHorizon); err == nil {
		t.Error(`mode "elastic" replayed without error`)
	}
}

// gridReplay is a second, even plainer replay used only to check the
// oracle's breakpoint and candidate arguments: with integer times it books
// node counts per whole second, tests every second of an interval, and
// tries every start asked+1, asked+2, ..., asked+horizon in turn. It never
// deletes anything (deletion cannot change a count; see oracleReplay).
func gridReplay(recs []oracleRecord, capacity int64, mode string, horizon, span int64) oracleCounts {
	sorted := append([]oracleRecord(nil), recs...)
	// Insertion sort by (submit, job): deliberately not the oracle's code.
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0; j-- {
			a, b := sorted[j-1], sorted[j]
			if a.submit < b.submit || (a.submit == b.submit && a.job <= b.job) {
				break
			}
			sorted[j-1], sorted[j] = b, a
		}
	}
	use := make([]int64, span)
	fits := func(s, run, n int64) bool {
		for x := s; x < s+run; x++ {
			if use[x]+n > capacity {
				return false
			}
		}
		return true
	}
	book := func(s, run, n int64) {
		for x := s; x < s+run; x++ {
			use[x] += n
		}
	}
	var c oracleCounts
	for _, r := range sorted {
		n := r.procs
		if r.procs == -1 {
			n = r.reqProcs
		}
		if r.run <= 0 || n <= 0 {
			continue
		}
		if n > capacity {
			n = capacity
		}
		s := r.submit + max(r.wait, 0)
		c.Requests++
		switch {
		case fits(s, r.run, n):
			book(s, r.run, n)
			c.Accepted++
		case mode == oracleModeSuggest:
			found := false
			for d := int64(1); d <= horizon; d++ {
				if fits(s+d, r.run, n) {
					book(s+d, r.run, n)
					found = true
					break
				}
			}
			if found {
				c.Suggested++
			} else {
				c.Rejected++
			}
		default:
			c.Rejected++
		}
	}
	return c
}

// TestOracleAgreesWithGrid replays random small traces with both the
// oracle and gridReplay: equal counts on every one back the oracle's claims
// that breakpoints suffice for a fit check and reservation ends suffice as
// suggestion candidates.
func TestOracleAgreesWithGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2026))
	const span = 1200
	for iter := range 3000 {
		capacity := 1 + rng.Int64N(8)
		horizon := rng.Int64N(120)
		var tr oracleTrace
		for i := range 1 + rng.IntN(40) {
			r := oracleRecord{
				job:      int64(rng.IntN(30)), // repeated numbers exercise the tie-break
				submit:   rng.Int64N(300),
				wait:     rng.Int64N(80) - 1,
				run:      rng.Int64N(90) - 2,
				procs:    rng.Int64N(capacity+4) - 1,
				reqProcs: rng.Int64N(capacity+4) - 1,
				line:     i + 1,
			}
			// Distinct (submit, job) pairs: with equal pairs the order
			// would be up to each sort's stability.
			dup := false
			for _, o := range tr.records {
				dup = dup || (o.submit == r.submit && o.job == r.job)
			}
			if !dup {
				tr.records = append(tr.records, r)
			}
		}
		for _, mode := range []string{oracleModeRigid, oracleModeSuggest} {
			got, err := oracleReplay(tr, capacity, mode, horizon)
			if err != nil {
				t.Fatal(err)
			}
			want := gridReplay(tr.records, capacity, mode, horizon, span)
			if got != want {
				t.Fatalf("iteration %d, %s, capacity %d, horizon %d: oracle %+v, grid %+v\nrecords %+v",
					iter, mode, capacity, horizon, got, want, tr.records)
			}
			if got.Accepted+got.Suggested+got.Rejected != got.Requests {
				t.Fatalf("iteration %d: counts do not add up: %+v", iter, got)
			}
		}
	}
}

// oracleGoldenEntry is one line of the golden table: the counts `bench
// calendar` must report for a trace, a capacity and a mode.
type oracleGoldenEntry struct {
	Trace string `json:"trace"`
	// Capacity is the capacity replayed; DefaultCapacity says it is the
	// trace's default, so the command runs without --capacity.
	Capacity        int64  `json:"capacity"`
	DefaultCapacity bool   `json:"default_capacity"`
	Mode            string `json:"mode"`
	oracleCounts
}

// oracleGoldenTraces are the shared traces the golden table covers.
var oracleGoldenTraces = []string{
	"ANL-Theta.swf",
	"HPC2N-2002-first3171.swf",
	"NASA-iPSC-1993-3.1-cln.swf",
	"SDSC-SP2-1998-first4961.swf",
	"lublin-256-synthetic.swf",
}

// oracleComputeGolden replays every shared trace at its default capacity
// and at half of it (the real logs were feasible schedules on the full
// machine, so half the machine is where the calendars get exercised), in
// both modes.
func oracleComputeGolden(t *testing.T) []oracleGoldenEntry {
	t.Helper()
	var out []oracleGoldenEntry
	for _, name := range oracleGoldenTraces {
		tr, err := readOracleTrace(swf.TestTrace(t, name))
		if err != nil {
			t.Fatal(err)
		}
		def := tr.capacity()
		for _, capacity := range []int64{def, def / 2} {
			for _, mode := range []string{oracleModeRigid, oracleModeSuggest} {
				c, err := oracleReplay(tr, capacity, mode, oracleHorizon)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				out = append(out, oracleGoldenEntry{name, capacity, capacity == def, mode, c})
			}
		}
	}
	return out
}

func readOracleGolden(t *testing.T) []oracleGoldenEntry {
	t.Helper()
	b, err := os.ReadFile(oracleGolden)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/slotfare -run TestOracleGolden -update)", err)
	}
	var g []oracleGoldenEntry
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", oracleGolden, err)
	}
	return g
}

// TestOracleGolden recomputes the golden counts of every shared trace with
// the oracle and compares them with testdata/oracle/bench_counts.json, so
// the file cannot drift from the oracle; -update rewrites it.
func TestOracleGolden(t *testing.T) {
	got := oracleComputeGolden(t)
	if *update {
		var buf bytes.Buffer
		buf.WriteString("[\n")
		for i, e := range got {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			buf.WriteString("  ")
			buf.Write(b)
			if i < len(got)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString("]\n")
		if err := os.WriteFile(oracleGolden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readOracleGolden(t)
	if len(got) != len(want) {
		t.Fatalf("oracle gives %d entries, %s has %d", len(got), oracleGolden, len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("entry %d: oracle %+v, golden %+v", i, got[i], want[i])
		}
		if c := got[i].oracleCounts; c.Accepted+c.Suggested+c.Rejected != c.Requests {
			t.Errorf("entry %d: counts do not add up: %+v", i, got[i])
		}
		if got[i].Mode == oracleModeRigid && got[i].Suggested != 0 {
			t.Errorf("entry %d: rigid mode suggested %d", i, got[i].Suggested)
		}
	}
}
