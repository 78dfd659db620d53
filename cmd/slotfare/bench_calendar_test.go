package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"slotfare/forecast/swf"
)

func TestBenchCalendarFlags(t *testing.T) {
	trace := filepath.Join("testdata", "oracle", "basic.swf")
	cases := []struct {
		args []string
		flag string
	}{
		{[]string{}, "--trace"},
		{[]string{"--trace", trace, "--mode", "elastic"}, "--mode"},
		{[]string{"--trace", trace, "--impl", "tree,heap"}, "--impl"},
		{[]string{"--trace", trace, "--impl", "tree,tree"}, "--impl"},
		{[]string{"--trace", trace, "--capacity", "0"}, "--capacity"},
		{[]string{"--trace", trace, "--capacity", "x"}, "--capacity"},
		{[]string{"--trace", trace, "--repeat", "0"}, "--repeat"},
		{[]string{"--trace", filepath.Join(t.TempDir(), "missing.swf")}, "--trace"},
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		args := append([]string{"bench", "calendar"}, tc.args...)
		if got := run(args, &out, &errb); got != 2 {
			t.Errorf("%q: status %d, want 2 (stderr %s)", tc.args, got, errb.String())
		}
		if !strings.Contains(errb.String(), tc.flag) || out.Len() != 0 {
			t.Errorf("%q: stderr %q should name %s; stdout %q should be empty", tc.args, errb.String(), tc.flag, out.String())
		}
	}
}

// benchLines runs the command and decodes its JSON lines by impl.
func benchLines(t *testing.T, args ...string) map[string]benchResult {
	t.Helper()
	var out, errb bytes.Buffer
	if got := run(append([]string{"bench", "calendar"}, args...), &out, &errb); got != 0 {
		t.Fatalf("%q: status %d: %s", args, got, errb.String())
	}
	res := map[string]benchResult{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r benchResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v in %s", args, err, sc.Text())
		}
		res[r.Impl] = r
	}
	return res
}

// TestBenchCalendarMini replays the oracle's hand-worked mini trace (its
// header comments show the working) with every implementation.
func TestBenchCalendarMini(t *testing.T) {
	trace := filepath.Join("testdata", "oracle", "basic.swf")
	for _, tc := range []struct {
		mode string
		want benchCounts
	}{
		{"rigid", benchCounts{6, 4, 0, 2}},
		{"suggest", benchCounts{6, 3, 3, 0}},
	} {
		res := benchLines(t, "--trace", trace, "--mode", tc.mode, "--impl", "tree,freelist", "--repeat", "3")
		for _, impl := range []string{"tree", "freelist"} {
			r, ok := res[impl]
			if !ok || r.benchCounts != tc.want || r.Runs != 3 || r.NsPerRequest <= 0 || r.MedianNsPerRequest < r.NsPerRequest {
				t.Errorf("%s %s: %+v, want counts %+v", tc.mode, impl, r, tc.want)
			}
		}
	}
}

// TestBenchCalendarTreeFreeListAgree replays every shared trace at its
// default capacity and at half of it, in both modes: tree and free list
// decide exactly, so their counts must be equal.
func TestBenchCalendarTreeFreeListAgree(t *testing.T) {
	for _, tr := range swf.SharedTraces(t) {
		def := benchLines(t, "--trace", tr, "--impl", "tree", "--mode", "rigid")["tree"].Capacity
		for _, capacity := range []int{def, def / 2} {
			for _, mode := range []string{"rigid", "suggest"} {
				res := benchLines(t, "--trace", tr, "--impl", "tree,freelist,slotted", "--mode", mode, "--capacity", strconv.Itoa(capacity))
				a, b, s := res["tree"], res["freelist"], res["slotted"]
				if a.benchCounts != b.benchCounts || a.Requests == 0 {
					t.Errorf("%s cap %d %s: tree %+v, freelist %+v", filepath.Base(tr), capacity, mode, a.benchCounts, b.benchCounts)
				}
				if s.Requests != a.Requests || s.Accepted+s.Suggested+s.Rejected != s.Requests {
					t.Errorf("%s cap %d %s: slotted %+v", filepath.Base(tr), capacity, mode, s.benchCounts)
				}
			}
		}
	}
}

// TestBenchCalendarBinary runs the real binary once: one JSON line per
// implementation, and exit status 2 naming the flag on bad input.
func TestBenchCalendarBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "slotfare")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "bench", "calendar", "--trace", filepath.Join("testdata", "oracle", "basic.swf")).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got %q", out)
	}
	for i, want := range []string{"tree", "slotted", "freelist"} {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil || m["impl"] != want {
			t.Fatalf("line %d = %s (%v), want impl %s", i, lines[i], err, want)
		}
		for _, k := range []string{"requests", "accepted", "suggested", "rejected", "ns_per_request"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %s", i, k)
			}
		}
	}
	cmd := exec.Command(bin, "bench", "calendar", "--trace", "x.swf", "--mode", "bogus")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "--mode") {
		t.Errorf("bad mode: %v, stderr %q", err, stderr.String())
	}
	_ = os.Remove(bin)
}

// BenchmarkReplay times one replay of each shared trace per implementation
// and mode (what `bench calendar` reports, under the go test harness).
func BenchmarkReplay(b *testing.B) {
	for _, tr := range swf.SharedTraces(b) {
		f, err := os.Open(tr)
		if err != nil {
			b.Fatal(err)
		}
		log, err := swf.Read(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		reqs, err := benchRequests(log, int(log.Header.MaxProcs))
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"rigid", "suggest"} {
			for _, impl := range []string{"tree", "freelist", "slotted"} {
				b.Run(strings.TrimSuffix(filepath.Base(tr), ".swf")+"/"+mode+"/"+impl, func(b *testing.B) {
					for b.Loop() {
						c, _, err := newBenchCalendar(impl, int(log.Header.MaxProcs), reqs, mode == "suggest")
						if err != nil {
							b.Fatal(err)
						}
						if _, _, _, _, err := replay(c, reqs, mode == "suggest"); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reqs)), "ns/request")
				})
			}
		}
	}
}
