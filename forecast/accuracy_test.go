package forecast

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"slotfare/forecast/swf"
)

// swfProfiles are the application profiles of a trace job, finest first:
// user, executable and requested processors; then user and processors; then
// the user alone. Seed 002 Sec. 4.3 counts two runs as the same application
// type when their inputs and outputs match in number, type and size; an SWF
// log records no inputs, so the executable stands for the application, the
// requested width for the problem size (the same code on 8 or 128
// processors is a different job) and the user for the inputs a user
// habitually feeds it. The coarser profiles are there because logs differ
// in what the executable field means: SDSC-SP2 numbers 4400 executables
// over 4961 jobs, almost one a job, so the finest profile rarely has
// history there. Unknown fields (-1) are kept as a value.
func swfProfiles(j swf.Job) []string {
	procs := j.ReqProcs
	if procs <= 0 {
		procs = j.Procs
	}
	return []string{
		fmt.Sprintf("u%d/x%d/p%d", j.User, j.Executable, procs),
		fmt.Sprintf("u%d/p%d", j.User, procs),
		fmt.Sprintf("u%d", j.User),
	}
}

// predictionError sums how far one predictor's guesses fall from the actual
// run times: absolute error, and how many were within 10% and 50% of the
// actual time.
type predictionError struct {
	n                  int
	absSum             float64
	within10, within50 int
}

func (e *predictionError) add(predicted, actual float64) {
	d := math.Abs(predicted - actual)
	e.n++
	e.absSum += d
	if d <= 0.1*actual {
		e.within10++
	}
	if d <= 0.5*actual {
		e.within50++
	}
}

func (e predictionError) mae() float64 { return e.absSum / float64(e.n) }
func (e predictionError) share(k int) float64 {
	return float64(k) / float64(e.n)
}
func (e predictionError) String() string {
	return fmt.Sprintf("MAE %.0f s, within 10%% %.1f%%, within 50%% %.1f%%", e.mae(), 100*e.share(e.within10), 100*e.share(e.within50))
}

// replayResult is one replay's errors, over the same jobs: TCT on the
// job's finest profile with history, the mean of every run finished so far
// (the global mean), and the user's requested time (only over the jobs that
// state one, with TCT's error over those same jobs in tctOnRequested).
// byLevel counts the jobs predicted at each profile level.
type replayResult struct {
	tct, global, requested predictionError
	tctOnRequested         predictionError
	byLevel                []int
}

// replayTCT replays jobs in submission order. At each job's submission TCT
// predicts its run time from the runs that finished by then of its finest
// profile (profiles(j), finest first) that has any; a job is recorded when
// it ends, so a run still going is not history. A job is scored only when
// some profile has history. Jobs that did not complete (status 0 failed, 5
// cancelled) or have no positive run time are neither history nor scored:
// their run time is not the application's.
func replayTCT(t *testing.T, jobs []swf.Job, profiles func(swf.Job) []string) replayResult {
	t.Helper()
	const host = "trace"
	var kept []swf.Job
	var runs, all []PastRun
	for _, j := range jobs {
		if j.Run <= 0 || j.Status == 0 || j.Status == 5 || j.Submit < 0 {
			continue
		}
		end := time.Unix(j.Submit+max(j.Wait, 0)+j.Run, 0)
		run := time.Duration(j.Run) * time.Second
		kept = append(kept, j)
		for _, p := range profiles(j) {
			runs = append(runs, PastRun{Host: host, App: p, Finished: end, Execution: run})
		}
		all = append(all, PastRun{Host: host, App: "*", Finished: end, Execution: run})
	}
	byProfile, err := NewDurationPredictor(runs, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	global, err := NewDurationPredictor(all, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var r replayResult
	for _, j := range kept {
		now := time.Unix(j.Submit, 0)
		var d time.Duration
		level := -1
		for i, p := range profiles(j) {
			if pd, _, ok := byProfile.TCT(host, p, now); ok {
				d, level = pd, i
				break
			}
		}
		if level < 0 {
			continue
		}
		for len(r.byLevel) <= level {
			r.byLevel = append(r.byLevel, 0)
		}
		r.byLevel[level]++
		g, _, ok := global.TCT(host, "*", now)
		if !ok {
			t.Fatalf("job %d: its profile has history but the global mean has none", j.Number)
		}
		actual := float64(j.Run)
		r.tct.add(d.Seconds(), actual)
		r.global.add(g.Seconds(), actual)
		if j.ReqTime > 0 {
			r.requested.add(float64(j.ReqTime), actual)
			r.tctOnRequested.add(d.Seconds(), actual)
		}
	}
	return r
}

// TestTCTAccuracyOnSharedTraces replays every shared trace through TCT on
// the profiles of swfProfiles and reports its error. Seed 002 (Sec. 1, 4.3
// and 5) argues that durations predicted from previous runs of the same
// application serve in place of the users' a priori knowledge; what must
// hold on every trace with enough history is that TCT's mean absolute
// error is below the global mean's (the profile carries information), and,
// where users state a requested time, below the requested time's.
func TestTCTAccuracyOnSharedTraces(t *testing.T) {
	for _, path := range swf.SharedTraces(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			log, err := swf.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			r := replayTCT(t, log.Jobs, swfProfiles)
			t.Logf("%d of %d jobs predicted (by profile level, finest first: %v): TCT %v; global mean %v", r.tct.n, len(log.Jobs), r.byLevel, r.tct, r.global)
			if r.requested.n > 0 {
				t.Logf("%d jobs with a requested time: TCT %v; requested time %v", r.requested.n, r.tctOnRequested, r.requested)
			}
			if r.tct.n < 500 {
				t.Skipf("only %d jobs had history for their profile; too few to compare", r.tct.n)
			}
			if r.tct.mae() >= r.global.mae() {
				t.Errorf("TCT's MAE %.0f s is not below the global mean's %.0f s", r.tct.mae(), r.global.mae())
			}
			if r.requested.n >= 500 && r.tctOnRequested.mae() >= r.requested.mae() {
				t.Errorf("TCT's MAE %.0f s is not below the requested time's %.0f s", r.tctOnRequested.mae(), r.requested.mae())
			}
		})
	}
}

// TestReplayTCTHandMade checks the replay's bookkeeping on jobs small enough
// to follow by hand.
func TestReplayTCTHandMade(t *testing.T) {
	job := func(n, user, submit, wait, run, req, status int64) swf.Job {
		return swf.Job{Number: n, Submit: submit, Wait: wait, Run: run, ReqTime: req, Status: status,
			User: user, Executable: 1, ReqProcs: 4, Procs: 4}
	}
	tests := []struct {
		name string
		jobs []swf.Job
		// want: scored jobs, TCT absolute error sum, within 10%/50%,
		// global absolute error sum, requested-time jobs and error sum.
		n, w10, w50, reqN     int
		tctAbs, globAbs, reqA float64
		byLevel               []int
	}{
		{name: "first run of a profile is not scored",
			jobs: []swf.Job{job(1, 7, 0, 0, 100, 200, 1)}},
		{name: "a run still going is not history",
			jobs: []swf.Job{job(1, 7, 0, 0, 100, 200, 1), job(2, 7, 50, 0, 100, 200, 1)}},
		{name: "second run predicted from the first",
			// job 2 at t=200: TCT 100 vs 110 (error 10, within 10%);
			// global mean 100; requested 300 (error 190).
			jobs: []swf.Job{job(1, 7, 0, 0, 100, 200, 1), job(2, 7, 200, 0, 110, 300, 1)},
			n:    1, w10: 1, w50: 1, tctAbs: 10, globAbs: 10, reqN: 1, reqA: 190, byLevel: []int{1}},
		{name: "a new executable falls back on the user's runs at that width, then on the user's",
			// job 3 (executable 2, 4 processors) at t=1000: no run of its
			// own, user 7 at 4 processors ran 100 s (error 0). Job 4
			// (executable 2, 64 processors) at t=2000: the user's three
			// runs, 100 s each.
			jobs: []swf.Job{job(1, 7, 0, 0, 100, 0, 1),
				{Number: 3, Submit: 1000, Run: 100, Status: 1, User: 7, Executable: 2, ReqProcs: 4},
				{Number: 4, Submit: 2000, Run: 100, Status: 1, User: 7, Executable: 2, ReqProcs: 64}},
			n: 2, w10: 2, w50: 2, byLevel: []int{0, 1, 1}},
		{name: "profiles are kept apart, the global mean is not",
			// user 8 runs 1000 s, user 7 runs 100 s. Job 3 (user 7, t=5000):
			// TCT 100 vs 120 (error 20, within 50% not 10%); global
			// (100+1000)/2 = 550 (error 430). Job 4 (user 8, t=6000): TCT
			// 1000 vs 1000; global (100+1000+120)/3 = 406.67; no requested time.
			jobs: []swf.Job{job(1, 7, 0, 10, 100, 0, 1), job(2, 8, 0, 0, 1000, 0, 1),
				job(3, 7, 5000, 0, 120, 0, 1), job(4, 8, 6000, 0, 1000, 0, -1)},
			n: 2, w10: 1, w50: 2, tctAbs: 20, globAbs: 430 + (1000 - 1220.0/3), byLevel: []int{2}},
		{name: "failed, cancelled and zero-length runs are neither history nor scored",
			jobs: []swf.Job{job(1, 7, 0, 0, 100, 0, 0), job(2, 7, 0, 0, 100, 0, 5), job(3, 7, 0, 0, 0, 0, 1),
				job(4, 7, 500, 0, 100, 0, 1), job(5, 7, 600, 0, 0, 0, 1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := replayTCT(t, tc.jobs, swfProfiles)
			if r.tct.n != tc.n || r.global.n != tc.n || r.tct.within10 != tc.w10 || r.tct.within50 != tc.w50 {
				t.Errorf("scored %d (global %d), within 10%% %d, 50%% %d; want %d, %d, %d", r.tct.n, r.global.n, r.tct.within10, r.tct.within50, tc.n, tc.w10, tc.w50)
			}
			if math.Abs(r.tct.absSum-tc.tctAbs) > 1e-6 || math.Abs(r.global.absSum-tc.globAbs) > 1e-6 {
				t.Errorf("absolute errors TCT %v, global %v; want %v, %v", r.tct.absSum, r.global.absSum, tc.tctAbs, tc.globAbs)
			}
			if fmt.Sprint(r.byLevel) != fmt.Sprint(tc.byLevel) {
				t.Errorf("by profile level %v, want %v", r.byLevel, tc.byLevel)
			}
			if r.requested.n != tc.reqN || r.requested.absSum != tc.reqA {
				t.Errorf("requested time: %d jobs, error %v; want %d, %v", r.requested.n, r.requested.absSum, tc.reqN, tc.reqA)
			}
		})
	}
}

func TestSWFProfile(t *testing.T) {
	a := swf.Job{User: 3, Executable: 9, ReqProcs: 16, Procs: 16}
	// Another executable at the same width shares the coarser profiles.
	if c := (swf.Job{User: 3, Executable: 8, ReqProcs: 16}); swfProfiles(a)[1] != swfProfiles(c)[1] || swfProfiles(a)[2] != swfProfiles(c)[2] {
		t.Errorf("coarse profiles differ: %q vs %q", swfProfiles(a), swfProfiles(c))
	}
	for _, tc := range []struct {
		name string
		b    swf.Job
		same bool
	}{
		{"same job", a, true},
		{"allocated differs, requested same", swf.Job{User: 3, Executable: 9, ReqProcs: 16, Procs: 12}, true},
		{"other user", swf.Job{User: 4, Executable: 9, ReqProcs: 16}, false},
		{"other executable", swf.Job{User: 3, Executable: 8, ReqProcs: 16}, false},
		{"other width", swf.Job{User: 3, Executable: 9, ReqProcs: 32}, false},
		{"requested unknown, allocated same", swf.Job{User: 3, Executable: 9, ReqProcs: -1, Procs: 16}, true},
	} {
		if got := swfProfiles(a)[0] == swfProfiles(tc.b)[0]; got != tc.same {
			t.Errorf("%s: same profile %v, want %v (%q vs %q)", tc.name, got, tc.same, swfProfiles(a)[0], swfProfiles(tc.b)[0])
		}
	}
}
