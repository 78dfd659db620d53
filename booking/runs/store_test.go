package runs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
)

// TestPredictorOverStore predicts by TCT and ETTS from runs on a store,
// reading a bounded window.
func TestPredictorOverStore(t *testing.T) {
	ctx := context.Background()
	st := NewMemory()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	p := NewPredictor(st, 3, 0)
	if _, ok, err := p.Predict(ctx, "RAL", "blast", 0, t0, t0); ok || err != nil {
		t.Fatalf("no runs: %v %v", ok, err)
	}
	// 1000 s long ago, then 100, 200, 300 s: the window of 3 sees these.
	for i, sec := range []int{1000, 100, 200, 300} {
		r := Run{ID: fmt.Sprint("r", i), Profile: "blast", ResourceID: "RAL", Runtime: time.Duration(sec) * time.Second,
			FinishedAt: t0.Add(time.Duration(i) * time.Hour)}
		if _, _, err := st.Append(ctx, r, Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	now := t0.Add(4 * time.Hour)
	pr, ok, err := p.Predict(ctx, "RAL", "blast", 0, now, now)
	// Errors: 200 predicted as 100 (100), 300 predicted as 150 (150).
	want := Prediction{Duration: 200 * time.Second, Predictor: "TCT", Runs: 3, Scored: 2, MeanAbsError: 125 * time.Second}
	if err != nil || !ok || pr != want {
		t.Fatalf("TCT: %+v %v %v, want %+v", pr, ok, err, want)
	}
	// Bytes with no transfer recorded: still TCT.
	if pr, _, _ := p.Predict(ctx, "RAL", "blast", 1e6, now, now); pr.Predictor != "TCT" {
		t.Fatalf("no bandwidth: %+v", pr)
	}
	// A namd run moved 10000 B in 10 s: 1000 B/s on RAL. blast moving 1e6 B
	// is 200 s + 1000 s.
	if _, _, err := st.Append(ctx, Run{ID: "n", Profile: "namd", ResourceID: "RAL", Runtime: time.Second, Transfer: 10 * time.Second, Bytes: 10000, FinishedAt: now.Add(-time.Minute)}, Limits{}); err != nil {
		t.Fatal(err)
	}
	pr, ok, err = p.Predict(ctx, "RAL", "blast", 1e6, now.Add(time.Hour), now)
	if err != nil || !ok || pr.Predictor != "ETTS" || pr.Duration != 1200*time.Second || pr.Runs != 3 {
		t.Fatalf("ETTS: %+v %v %v", pr, ok, err)
	}
	// Rounded up to whole seconds.
	if _, _, err := st.Append(ctx, Run{ID: "x", Profile: "x", ResourceID: "RAL", Runtime: 1500 * time.Millisecond, FinishedAt: now}, Limits{}); err != nil {
		t.Fatal(err)
	}
	if pr, _, _ := p.Predict(ctx, "RAL", "x", 0, now, now); pr.Duration != 2*time.Second {
		t.Fatalf("rounding: %+v", pr)
	}
	if _, _, err := p.Predict(ctx, "RAL", "x", -1, now, now); slotfare.FieldOf(err) != "bytes" {
		t.Fatalf("negative bytes: %v", err)
	}
	// Runs count for 90 minutes after they finish: only the 300 s run, and
	// no bandwidth but the namd run's; none a day later.
	aged := NewPredictor(st, 3, 90*time.Minute)
	if pr, ok, err := aged.Predict(ctx, "RAL", "blast", 1e6, now, now); err != nil || !ok || pr.Runs != 1 || pr.Duration != 1300*time.Second {
		t.Fatalf("past their age: %+v %v %v", pr, ok, err)
	}
	if _, ok, err := aged.Predict(ctx, "RAL", "blast", 0, now.Add(24*time.Hour), now.Add(24*time.Hour)); err != nil || ok {
		t.Fatalf("a day later: %v %v", ok, err)
	}
}

// TestRecordCompletedKeepsAgeAndKept: a completed booking's run is kept
// and aged like a posted one, but not counted against the hour's rate
// (bookings are bounded by the resource): three completions of one
// account under a rate of one all record, two are kept; a booking that
// finished past the age records nothing and the completion goes on.
func TestRecordCompletedKeepsAgeAndKept(t *testing.T) {
	ctx := context.Background()
	st := NewMemory()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	record := RecordCompleted(st, func() time.Time { return t0 }, Limits{PerHour: 1, Kept: 2, MaxAge: 24 * time.Hour})
	for i, end := range []time.Duration{-3 * time.Hour, -2 * time.Hour, -time.Hour, -48 * time.Hour} {
		start := t0.Add(end - time.Hour)
		b := booking.Booking{ID: fmt.Sprint("b", i), AccountID: "alice", ResourceID: "RAL", Profile: "blast", Start: start, End: t0.Add(end),
			StartedAt: &start}
		if err := record(ctx, b); err != nil {
			t.Fatalf("completion %d: %v", i, err)
		}
	}
	if rs, err := st.Recent(ctx, "RAL", "blast", 10); err != nil || ids(rs) != "b2 b1 " {
		t.Fatalf("recent: %q %v", ids(rs), err)
	}
}

// ids lists runs' ids, newest first as the stores answer.
func ids(rs []Run) string {
	s := ""
	for _, r := range rs {
		s += r.ID + " "
	}
	return s
}
