package forecast

import (
	"testing"
	"time"

	"slotfare"
)

// TestPredictDurationHandMade checks the choice of predictor and the error
// scored on the history, by hand.
func TestPredictDurationHandMade(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	runs := []PastRun{
		// 100 s, then 200 s (150 + 50 moving 5000 B: 100 B/s), then 160 s.
		{Host: "RAL", App: "blast", Finished: t0, Execution: 100 * time.Second},
		{Host: "RAL", App: "blast", Finished: t0.Add(time.Hour), Execution: 150 * time.Second, Transfer: 50 * time.Second, Bytes: 5000},
		{Host: "RAL", App: "blast", Finished: t0.Add(2 * time.Hour), Execution: 160 * time.Second},
		{Host: "CERN", App: "blast", Finished: t0, Execution: time.Hour},
	}
	samples := []BandwidthSample{{Host: "RAL", At: t0.Add(time.Hour), BytesPerSecond: 100}}
	now := t0.Add(3 * time.Hour)
	q := DurationQuery{Host: "RAL", App: "blast", Start: now.Add(time.Hour), Now: now}

	// TCT: mean of 100, 200, 160; errors |100-200| and |150-160|.
	p, ok, err := PredictDuration(runs, samples, q)
	want := Prediction{Duration: 460 * time.Second / 3, Predictor: PredictorTCT, Runs: 3, MeanAbsError: 55 * time.Second, Scored: 2}
	if err != nil || !ok || p != want {
		t.Fatalf("TCT: %+v %v %v, want %+v", p, ok, err, want)
	}

	// ETTS with 20000 B: mean execution 410/3 s plus 200 s at 100 B/s.
	// Scored: run 2 from run 1 (no sample before it: not scored), run 3
	// from runs 1-2 with no bytes: 125 s against 160.
	q.Bytes = 20000
	p, ok, err = PredictDuration(runs, samples, q)
	want = Prediction{Duration: secondsDuration(410.0/3 + 200), Predictor: PredictorETTS, Runs: 3, MeanAbsError: 35 * time.Second, Scored: 1}
	if err != nil || !ok || p != want {
		t.Fatalf("ETTS: %+v %v %v, want %+v", p, ok, err, want)
	}

	// Bytes but no bandwidth recorded on the host: TCT.
	q.Host = "CERN"
	if p, ok, err = PredictDuration(runs, samples, q); err != nil || !ok || p.Predictor != PredictorTCT || p.Duration != time.Hour || p.Scored != 0 {
		t.Fatalf("CERN: %+v %v %v", p, ok, err)
	}
	// No run of the application: not ok; none finished by now: not ok.
	if _, ok, err = PredictDuration(runs, samples, DurationQuery{Host: "RAL", App: "namd", Now: now}); ok || err != nil {
		t.Fatalf("unknown app: %v %v", ok, err)
	}
	if _, ok, err = PredictDuration(runs, samples, DurationQuery{Host: "RAL", App: "blast", Now: t0.Add(-time.Second)}); ok || err != nil {
		t.Fatalf("before any run: %v %v", ok, err)
	}
	if _, _, err = PredictDuration(runs, samples, DurationQuery{Host: "RAL", App: "blast", Bytes: -1, Now: now}); slotfare.FieldOf(err) != "bytes" {
		t.Fatalf("negative bytes: %v", err)
	}
}

// TestPredictDurationAgreesWithRuns: on the same runs, recorded in
// finishing order, PredictDuration's TCT and its error are Runs'.
func TestPredictDurationAgreesWithRuns(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var r Runs
	var past []PastRun
	for i, sec := range []int{120, 300, 45, 600, 610, 90, 3000, 75} {
		exec, transfer := time.Duration(sec)*time.Second, time.Duration(i*7)*time.Second
		if err := r.Record("blast", exec, transfer); err != nil {
			t.Fatal(err)
		}
		past = append(past, PastRun{Host: "RAL", App: "blast", Finished: t0.Add(time.Duration(i) * time.Hour), Execution: exec, Transfer: transfer})
	}
	want, _ := r.Predict("blast")
	got, ok, err := PredictDuration(past, nil, DurationQuery{Host: "RAL", App: "blast", Now: t0.Add(24 * time.Hour)})
	if err != nil || !ok || got != want {
		t.Fatalf("PredictDuration %+v (%v %v), Runs %+v", got, ok, err, want)
	}
}
