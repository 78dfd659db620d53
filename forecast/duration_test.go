package forecast

import (
	"math"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"slotfare"
	"slotfare/forecast/swf"
)

// TestTCTOnSDSCTrace replays the SDSC SP2 log: at each completed job's
// submission, TCT predicts its run time as the mean run time of the same
// user's jobs finished by then (the user standing in for the application,
// the machine for the host). Users' own requested times are the estimate
// slotfare replaces (seed 002 Sec. 4.3: users lack a priori knowledge of job
// durations); the history-based prediction must be closer, on mean absolute
// error, over the same jobs.
func TestTCTOnSDSCTrace(t *testing.T) {
	f, err := os.Open(swf.TestTrace(t, "SDSC-SP2-1998-first4961.swf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := swf.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	epoch := log.Header.UnixStartTime
	var jobs []swf.Job
	var runs []PastRun
	for _, j := range log.Jobs {
		if j.Status != 1 || j.Run <= 0 || j.ReqTime <= 0 || j.User < 0 || j.Wait < 0 {
			continue
		}
		jobs = append(jobs, j)
		runs = append(runs, PastRun{
			Host: "SDSC-SP2", App: strconv.FormatInt(j.User, 10),
			Finished:  time.Unix(epoch+j.Submit+j.Wait+j.Run, 0),
			Execution: time.Duration(j.Run) * time.Second,
		})
	}
	p, err := NewDurationPredictor(runs, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var predicted, requested float64
	n := 0
	for _, j := range jobs {
		now := time.Unix(epoch+j.Submit, 0)
		d, k, ok := p.TCT("SDSC-SP2", strconv.FormatInt(j.User, 10), now)
		if !ok {
			continue
		}
		if k < 1 {
			t.Fatalf("TCT ok with %d runs", k)
		}
		predicted += math.Abs(d.Seconds() - float64(j.Run))
		requested += math.Abs(float64(j.ReqTime - j.Run))
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d jobs had a history; the replay is broken", n)
	}
	predicted /= float64(n)
	requested /= float64(n)
	t.Logf("%d jobs: mean absolute error %.0f s by TCT on the user's history, %.0f s by the requested time", n, predicted, requested)
	if predicted >= requested {
		t.Errorf("TCT's error %.0f s is not below the requested time's %.0f s", predicted, requested)
	}
}

var durationNow = time.Date(2025, 5, 14, 12, 0, 0, 0, time.UTC)

func TestTCTAndETTSHandMade(t *testing.T) {
	day := durationNow.AddDate(0, 0, -1)
	runs := []PastRun{
		{Host: "h", App: "blast", Finished: durationNow.Add(-3 * time.Hour), Execution: 600 * time.Second, Transfer: 400 * time.Second},
		{Host: "h", App: "blast", Finished: durationNow.Add(-2 * time.Hour), Execution: 900 * time.Second, Transfer: 100 * time.Second},
		{Host: "h", App: "blast", Finished: durationNow.Add(time.Hour), Execution: 9000 * time.Second}, // not finished yet
		{Host: "h", App: "namd", Finished: durationNow.Add(-time.Hour), Execution: 50 * time.Second},
		{Host: "g", App: "blast", Finished: durationNow.Add(-time.Hour), Execution: 10 * time.Second},
	}
	samples := []BandwidthSample{
		// Yesterday 10:00-11:00, the window of a job starting at 10:00 today.
		{Host: "h", At: day.Add(-2*time.Hour + 10*time.Minute), BytesPerSecond: 1e6},
		{Host: "h", At: day.Add(-2*time.Hour + 40*time.Minute), BytesPerSecond: 3e6},
		// Outside the window.
		{Host: "h", At: day.Add(-2*time.Hour - time.Minute), BytesPerSecond: 50e6},
		{Host: "h", At: day.Add(-time.Hour), BytesPerSecond: 50e6},
		{Host: "h", At: durationNow.Add(-time.Hour), BytesPerSecond: 11e6},
		// Recorded after now: not yet known.
		{Host: "h", At: durationNow.Add(time.Hour), BytesPerSecond: 1e9},
		{Host: "g", At: durationNow.Add(-30 * time.Hour), BytesPerSecond: 4e6},
	}
	p, err := NewDurationPredictor(runs, samples, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// TCT: completion times 1000 s and 1000 s.
	if d, n, ok := p.TCT("h", "blast", durationNow); !ok || n != 2 || d != 1000*time.Second {
		t.Errorf("TCT = %s over %d runs (%v), want 1000s over 2", d, n, ok)
	}
	// Later, the long run has finished and counts.
	if d, n, _ := p.TCT("h", "blast", durationNow.Add(2*time.Hour)); n != 3 || d != 3666666666667*time.Nanosecond {
		t.Errorf("TCT later = %s over %d runs, want 3666.666666667s over 3", d, n)
	}
	if _, _, ok := p.TCT("h", "gromacs", durationNow); ok {
		t.Error("TCT for an application never run")
	}
	if _, _, ok := p.TCT("h", "blast", durationNow.Add(-5*time.Hour)); ok {
		t.Error("TCT before any run finished")
	}
	// ETTS for a job starting today 10:00 moving 4 GB: execution 750 s, the
	// window yesterday 10:00-11:00 averaged 2 MB/s, so 2000 s of transfer.
	start := durationNow.Add(-2 * time.Hour)
	e, ok, err := p.ETTS("h", "blast", 4e9, start, durationNow)
	if err != nil || !ok {
		t.Fatalf("ETTS: %v %v", ok, err)
	}
	want := DurationEstimate{Execution: 750 * time.Second, Transfer: 2000 * time.Second, Total: 2750 * time.Second,
		Runs: 2, Bandwidth: 2e6, Samples: 2, DayBefore: true}
	if e != want {
		t.Errorf("ETTS = %+v, want %+v", e, want)
	}
	// No bytes: execution only.
	if e, ok, _ := p.ETTS("h", "blast", 0, start, durationNow); !ok || e.Total != 750*time.Second || e.Samples != 0 {
		t.Errorf("ETTS without data = %+v", e)
	}
	// No sample in yesterday's window (a job at 03:00): the mean of all 5
	// samples before now, (1 + 3 + 50 + 50 + 11) / 5 = 23 MB/s.
	e, ok, _ = p.ETTS("h", "blast", 23e6*100, durationNow.Add(-9*time.Hour), durationNow)
	if !ok || e.DayBefore || e.Samples != 5 || e.Bandwidth != 23e6 || e.Transfer != 100*time.Second {
		t.Errorf("ETTS fallback = %+v", e)
	}
	// A host with runs but no samples cannot estimate a transfer.
	if _, ok, _ := p.ETTS("x", "blast", 1, start, durationNow); ok {
		t.Error("ETTS on an unknown host")
	}
	noSamples, _ := NewDurationPredictor(runs, nil, 0)
	if _, ok, _ := noSamples.ETTS("h", "blast", 1, start, durationNow); ok {
		t.Error("ETTS with no bandwidth history")
	}
	if _, _, err := p.ETTS("h", "blast", -1, start, durationNow); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "bytes" {
		t.Errorf("negative bytes: %v", err)
	}
}

// TestETTSAcrossAClockChange: "the day before" is the calendar day in the
// start's zone, so the window keeps its time of day across a DST change.
func TestETTSAcrossAClockChange(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	// Sunday 2025-03-30 is 23 hours long; a job at Monday 09:00 BST looks at
	// Sunday 09:00 BST (08:00 UTC), 23 hours earlier.
	start := time.Date(2025, 3, 31, 9, 0, 0, 0, london)
	samples := []BandwidthSample{
		{Host: "h", At: time.Date(2025, 3, 30, 8, 30, 0, 0, time.UTC), BytesPerSecond: 5e6}, // 09:30 BST Sunday
		{Host: "h", At: time.Date(2025, 3, 30, 9, 30, 0, 0, time.UTC), BytesPerSecond: 1e6}, // 10:30 BST
	}
	runs := []PastRun{{Host: "h", App: "a", Finished: start.Add(-48 * time.Hour), Execution: time.Second}}
	p, err := NewDurationPredictor(runs, samples, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := p.ETTS("h", "a", 5e6, start, start)
	if err != nil || !ok || !e.DayBefore || e.Bandwidth != 5e6 || e.Transfer != time.Second {
		t.Errorf("ETTS = %+v, %v, %v; want the 09:30 sample only", e, ok, err)
	}
}

func TestNewDurationPredictorInvalid(t *testing.T) {
	good := PastRun{Host: "h", App: "a", Execution: time.Second}
	tests := []struct {
		runs    []PastRun
		samples []BandwidthSample
		window  time.Duration
		field   string
	}{
		{[]PastRun{good, {App: "a"}}, nil, 0, "runs[1].host"},
		{[]PastRun{{Host: "h"}}, nil, 0, "runs[0].app"},
		{[]PastRun{{Host: "h", App: "a", Execution: -time.Second}}, nil, 0, "runs[0].execution"},
		{[]PastRun{{Host: "h", App: "a", Transfer: -time.Second}}, nil, 0, "runs[0].transfer"},
		{nil, []BandwidthSample{{BytesPerSecond: 1}}, 0, "samples[0].host"},
		{nil, []BandwidthSample{{Host: "h", BytesPerSecond: 0}}, 0, "samples[0].bytes_per_second"},
		{nil, []BandwidthSample{{Host: "h", BytesPerSecond: math.NaN()}}, 0, "samples[0].bytes_per_second"},
		{nil, []BandwidthSample{{Host: "h", BytesPerSecond: math.Inf(1)}}, 0, "samples[0].bytes_per_second"},
		{nil, nil, -time.Minute, "window"},
	}
	for _, tt := range tests {
		_, err := NewDurationPredictor(tt.runs, tt.samples, tt.window)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("err = %v, want Invalid on %s", err, tt.field)
		}
	}
}

func BenchmarkTCTReplay(b *testing.B) {
	var runs []PastRun
	for i := 0; i < 100000; i++ {
		runs = append(runs, PastRun{Host: "h", App: strconv.Itoa(i % 300), Finished: durationNow.Add(time.Duration(i) * time.Minute), Execution: time.Duration(i%977) * time.Second})
	}
	p, err := NewDurationPredictor(runs, nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	apps := make([]string, 300)
	for i := range apps {
		apps[i] = strconv.Itoa(i)
	}
	sort.Strings(apps)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p.TCT("h", apps[i%300], durationNow.Add(time.Duration(i%100000)*time.Minute))
		i++
	}
}
