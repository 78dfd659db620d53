package pricing

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"slotfare/forecast/swf"
)

// update rewrites the package's golden files under testdata (the delay
// snapshots and demo_*.json) from the code: go test ./pricing -update. Every
// package with golden files has the same flag.
var update = flag.Bool("update", false, "rewrite the golden files under pricing/testdata")

// sp2Trace is the SDSC SP2 log the snapshots are cut from (testdata/traces).
const sp2Trace = "SDSC-SP2-1998-first4961.swf"

// traceJob is one usable record of a workload log.
type traceJob struct {
	id       int64
	submit   int64
	run      int64 // actual runtime
	estimate int64 // the user's estimate: requested time, or the run time when unknown
	nodes    int64
}

func readTrace(tb testing.TB, path string) ([]traceJob, int64) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	log, err := swf.Read(f)
	if err != nil {
		tb.Fatal(err)
	}
	var jobs []traceJob
	for _, j := range log.Jobs {
		n := j.Nodes()
		if j.Run <= 0 || n <= 0 {
			continue
		}
		est := j.ReqTime
		if est <= 0 {
			est = j.Run
		}
		jobs = append(jobs, traceJob{id: j.Number, submit: j.Submit, run: j.Run, estimate: est, nodes: min(n, log.Header.MaxProcs)})
	}
	slices.SortStableFunc(jobs, func(a, b traceJob) int {
		if a.submit != b.submit {
			return int(a.submit - b.submit)
		}
		return int(a.id - b.id)
	})
	return jobs, log.Header.MaxProcs
}

// cutSnapshot replays a trace with a plain FCFS scheduler (jobs start in
// submit order as soon as enough nodes are free, taking their actual run
// times) up to instant at, and takes the running and queued jobs at that
// instant. Running jobs end at their start plus estimate (what a scheduler
// knows), at least one second after at. Widths scale from the trace's
// machine to nodes (rounded down, at least 1). When fewer than queued jobs
// wait at that instant, the next submitted ones join the queue as if they had
// arrived already.
func cutSnapshot(jobs []traceJob, traceNodes, at, nodes int64, queued int, policy BackfillPolicy) QueueSnapshot {
	type active struct{ end, estEnd, nodes int64 }
	var running []active
	var queue []traceJob
	free := traceNodes
	next := 0
	scale := func(n int64) int64 { return max(1, n*nodes/traceNodes) }
	q := QueueSnapshot{Nodes: nodes, Now: at, Policy: policy}
	t := int64(0)
	for {
		// finish, then start in FCFS order
		kept := running[:0]
		for _, r := range running {
			if r.end <= t {
				free += r.nodes
			} else {
				kept = append(kept, r)
			}
		}
		running = kept
		for next < len(jobs) && jobs[next].submit <= t {
			queue = append(queue, jobs[next])
			next++
		}
		for len(queue) > 0 && queue[0].nodes <= free {
			j := queue[0]
			queue = queue[1:]
			free -= j.nodes
			running = append(running, active{end: t + j.run, estEnd: t + j.estimate, nodes: j.nodes})
		}
		// next event
		nt := int64(-1)
		if next < len(jobs) {
			nt = jobs[next].submit
		}
		for _, r := range running {
			if nt < 0 || r.end < nt {
				nt = r.end
			}
		}
		if nt < 0 || nt > at {
			break
		}
		t = nt
	}
	for i, r := range running {
		q.Running = append(q.Running, QueueRunningJob{ID: fmt.Sprintf("r%d", i), Nodes: scale(r.nodes), End: max(r.estEnd, at+1)})
	}
	for len(queue) < queued && next < len(jobs) {
		queue = append(queue, jobs[next])
		next++
	}
	for _, j := range queue[:min(queued, len(queue))] {
		q.Queued = append(q.Queued, QueueJob{ID: fmt.Sprintf("j%d", j.id), Nodes: scale(j.nodes), Runtime: j.estimate})
	}
	return q
}

// sp2Snapshot is the benchmarks' machine: the SDSC SP2 trace cut at the
// given day and scaled to the 430 nodes of the paper's CTC machine with 500
// queued jobs (seed 001, Sec. 4).
func sp2Snapshot(tb testing.TB, policy BackfillPolicy, day int64) QueueSnapshot {
	jobs, traceNodes := readTrace(tb, swf.TestTrace(tb, sp2Trace))
	return cutSnapshot(jobs, traceNodes, day*86400, 430, 500, policy)
}

// benchDays are the cut instants benchmarked; day 10 is the slowest of the
// days 5, 10, ..., 40 for both EASY and conservative quote lists.
var benchDays = []int64{10, 20, 30}

// TestSP2SnapshotGolden keeps the day-10 snapshot as a scenario file for the
// command line (slotfare delay-price --scenario testdata/delay/sp2-430x500.json
// gives the EASY quote list for 64 nodes over 4 hours).
func TestSP2SnapshotGolden(t *testing.T) {
	q := sp2Snapshot(t, BackfillEASY, 10)
	if len(q.Queued) != 500 || q.Nodes != 430 || len(q.Running) == 0 {
		t.Fatalf("snapshot has %d queued, %d running on %d nodes", len(q.Queued), len(q.Running), q.Nodes)
	}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	scenario := struct {
		QueueSnapshot
		Request DelayRequest `json:"request"`
	}{q, DelayRequest{Nodes: 64, Duration: 4 * 3600}}
	got, err := json.MarshalIndent(scenario, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "delay", "sp2-430x500.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pricing -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go test ./pricing -run Golden -update", path)
	}
}

// benchEach runs f for each policy and cut day.
func benchEach(b *testing.B, f func(b *testing.B, q QueueSnapshot)) {
	for _, policy := range []BackfillPolicy{BackfillEASY, BackfillConservative, BackfillFCFS} {
		for _, day := range benchDays {
			b.Run(fmt.Sprintf("%s/day%d", policy, day), func(b *testing.B) {
				q := sp2Snapshot(b, policy, day)
				// The targets' shape: 500 queued jobs on 430 nodes.
				if q.Nodes != 430 || len(q.Queued) < 500 {
					b.Fatalf("snapshot has %d queued jobs on %d nodes, want 500 on 430", len(q.Queued), q.Nodes)
				}
				f(b, q)
			})
		}
	}
}

// BenchmarkDelayPremium prices one reservation (64 nodes, 4 hours, starting
// one hour after the snapshot) from scratch: validating and planning the
// queue, then pricing the request against the plan. Target: <= 1 ms.
func BenchmarkDelayPremium(b *testing.B) {
	benchEach(b, func(b *testing.B, q QueueSnapshot) {
		cpu := cpuClock()
		for b.Loop() {
			p, err := NewDelayPricer(q)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Premium(64, 4*3600, q.Now+3600); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
}

// BenchmarkDelayPremiumPlanned prices one reservation against an already
// planned queue (what a service does for each offer on one snapshot).
func BenchmarkDelayPremiumPlanned(b *testing.B) {
	benchEach(b, func(b *testing.B, q QueueSnapshot) {
		p, err := NewDelayPricer(q)
		if err != nil {
			b.Fatal(err)
		}
		cpu := cpuClock()
		for b.Loop() {
			if _, err := p.Premium(64, 4*3600, q.Now+3600); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
}

// BenchmarkDelayQuotes builds the whole quote list (seed 001, Sec. 3) for 64
// nodes over 4 hours from scratch, planning included. Target: <= 50 ms.
func BenchmarkDelayQuotes(b *testing.B) {
	benchEach(b, func(b *testing.B, q QueueSnapshot) {
		var n int
		cpu := cpuClock()
		for b.Loop() {
			p, err := NewDelayPricer(q)
			if err != nil {
				b.Fatal(err)
			}
			quotes, err := p.Quotes(64, 4*3600)
			if err != nil {
				b.Fatal(err)
			}
			n = len(quotes)
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(n), "quotes")
	})
}
