package forecast

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"slotfare"
)

func TestRunsHandMade(t *testing.T) {
	var r Runs
	if _, ok := r.Predict("blast"); ok {
		t.Fatal("prediction from an empty Runs")
	}
	steps := []struct {
		exec, transfer time.Duration
		// after recording: prediction, runs, mean absolute error, scored
		want   time.Duration
		n      int
		mae    time.Duration
		scored int
	}{
		// 100 s: nothing to score yet.
		{100 * time.Second, 0, 100 * time.Second, 1, 0, 0},
		// 200 s (150 + 50 of transfer) predicted as 100: error 100.
		{150 * time.Second, 50 * time.Second, 150 * time.Second, 2, 100 * time.Second, 1},
		// 160 s predicted as 150: error 10; mean (100 + 10) / 2.
		{160 * time.Second, 0, 460 * time.Second / 3, 3, 55 * time.Second, 2},
	}
	for i, s := range steps {
		if err := r.Record("blast", s.exec, s.transfer); err != nil {
			t.Fatal(err)
		}
		p, ok := r.Predict("blast")
		want := Prediction{Duration: s.want, Predictor: PredictorTCT, Runs: s.n, MeanAbsError: s.mae, Scored: s.scored}
		if !ok || p != want {
			t.Errorf("after run %d: %+v (%v), want %+v", i, p, ok, want)
		}
	}
	// Another profile is separate.
	if _, ok := r.Predict("namd"); ok {
		t.Error("prediction for a profile never recorded")
	}
	if err := r.Record("namd", time.Second, 0); err != nil {
		t.Fatal(err)
	}
	if p, _ := r.Predict("namd"); p.Runs != 1 || p.Duration != time.Second {
		t.Errorf("namd: %+v", p)
	}
}

func TestRunsRecordInvalid(t *testing.T) {
	var r Runs
	for _, tc := range []struct {
		profile        string
		exec, transfer time.Duration
		field          string
	}{
		{"", time.Second, 0, "profile"},
		{"a", 0, 0, "execution"},
		{"a", -time.Second, 0, "execution"},
		{"a", time.Second, -time.Second, "transfer"},
	} {
		err := r.Record(tc.profile, tc.exec, tc.transfer)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tc.field {
			t.Errorf("Record(%q, %s, %s) = %v, want invalid %s", tc.profile, tc.exec, tc.transfer, err, tc.field)
		}
	}
	if _, ok := r.Predict("a"); ok {
		t.Error("a rejected run was recorded")
	}
}

// TestRunsMatchesDirectComputation checks Runs' running sums against the
// definition computed from scratch: each run predicted by the mean of the
// runs before it.
func TestRunsMatchesDirectComputation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var r Runs
	var seen []float64
	for range 200 {
		sec := 1 + rng.IntN(5000)
		if err := r.Record("p", time.Duration(sec)*time.Second, 0); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, float64(sec))
	}
	var abs, sum float64
	for i, v := range seen {
		if i > 0 {
			abs += math.Abs(sum/float64(i) - v)
		}
		sum += v
	}
	p, _ := r.Predict("p")
	if p.Runs != 200 || p.Scored != 199 {
		t.Fatalf("%+v", p)
	}
	if d := math.Abs(p.Duration.Seconds() - sum/200); d > 1e-6 {
		t.Errorf("prediction %s, want %.3fs", p.Duration, sum/200)
	}
	if d := math.Abs(p.MeanAbsError.Seconds() - abs/199); d > 1e-6 {
		t.Errorf("mean absolute error %s, want %.3fs", p.MeanAbsError, abs/199)
	}
}

func TestRunsConcurrent(t *testing.T) {
	var r Runs
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 100 {
				if err := r.Record("p", time.Duration(g+1)*time.Second, 0); err != nil {
					t.Error(err)
				}
				r.Predict("p")
			}
		})
	}
	wg.Wait()
	// Means of 1..8 s, 100 runs each: 4.5 s.
	if p, _ := r.Predict("p"); p.Runs != 800 || p.Duration != 4500*time.Millisecond {
		t.Errorf("%+v", p)
	}
}
