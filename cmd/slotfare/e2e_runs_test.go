package main

import (
	"testing"
	"time"
)

// predictionE2E is a prediction as the real server shows it.
type predictionE2E struct {
	Predictor    string  `json:"predictor"`
	Duration     int64   `json:"duration_seconds"`
	Runs         int     `json:"runs"`
	MeanAbsError float64 `json:"mean_abs_error_seconds"`
}

// predictionOf is GET /v1/runs's prediction for profile on resource (nil
// without runs).
func predictionOf(t *testing.T, base, profile, resource string) *predictionE2E {
	t.Helper()
	var ans struct {
		Prediction *predictionE2E `json:"prediction"`
	}
	do(t, base, "GET", "/v1/runs?profile="+profile+"&resource_id="+resource, keyAlice, nil).want(t, 200).json(t, &ans)
	return ans.Prediction
}

// TestE2ERunsPredictParts runs duration prediction on the real binary, on
// the embedded store (across a kill -9) and on Redis with two replicas
// (runs posted to one, predicted on the other at once): runs posted, a
// retried run not counted twice, a co-reservation whose parts name a
// profile and take the durations predicted on each resource, and a
// booking that named a profile, checked out before its end, recording its
// own run as the ticker completes it.
func TestE2ERunsPredictParts(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		s := startServer(t, dir)
		postRuns(t, s.base)
		s.kill()
		s = startServer(t, dir)
		profileParts(t, s.base, s.base)
	})
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		rs := startReplicas(t, 2, durableRedis(t).URL())
		postRuns(t, rs[0].base)
		profileParts(t, rs[0].base, rs[1].base)
	})
}

// postRuns posts blast's runs on RAL (3000 s, 4200 s) and Imperial
// (1800 s), the first one twice, as a retrying script would.
func postRuns(t *testing.T, base string) {
	t.Helper()
	first := map[string]any{"profile": "blast", "resource_id": "RAL", "runtime_seconds": 3000, "run_id": "job-1"}
	do(t, base, "POST", "/v1/runs", keyProvider, first).want(t, 201)
	do(t, base, "POST", "/v1/runs", keyProvider, first).want(t, 200)
	do(t, base, "POST", "/v1/runs", keyAlice, map[string]any{"profile": "blast", "resource_id": "RAL", "runtime_seconds": 4200, "run_id": "job-2"}).want(t, 201)
	do(t, base, "POST", "/v1/runs", keyProvider, map[string]any{"profile": "blast", "resource_id": "Imperial", "runtime_seconds": 1800}).want(t, 201)
	r := do(t, base, "POST", "/v1/runs", keyProvider, map[string]any{"profile": "blast", "resource_id": "RAL", "runtime_seconds": 0}).want(t, 422)
	if p := r.problem(t); p.Errors[0].Field != "runtime_seconds" {
		t.Fatalf("a zero runtime names %q", p.Errors[0].Field)
	}
}

// profileParts reads the prediction on other (a restarted server, another
// replica), then reserves by profile there and has a booking record its run.
func profileParts(t *testing.T, posted, other string) {
	t.Helper()
	if p := predictionOf(t, other, "blast", "RAL"); p == nil || p.Predictor != "TCT" || p.Runs != 2 || p.Duration != 3600 || p.MeanAbsError != 1200 {
		t.Fatalf("prediction on RAL: %+v", p)
	}
	day := nextWeekday(time.Now().AddDate(0, 0, 7)).Truncate(24 * time.Hour)
	at := func(h int) time.Time { return day.Add(time.Duration(h) * time.Hour) }
	part := func(res string, from, to time.Time, extra map[string]any) map[string]any {
		p := map[string]any{"resource_id": res, "nodes": 2, "earliest_start": from.Format(time.RFC3339), "latest_end": to.Format(time.RFC3339), "profile": "blast"}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	var v struct {
		ID    string `json:"co_reservation_id"`
		Parts []struct {
			ResourceID string         `json:"resource_id"`
			Start      time.Time      `json:"start"`
			End        time.Time      `json:"end"`
			Profile    string         `json:"profile"`
			Prediction *predictionE2E `json:"prediction"`
		} `json:"parts"`
	}
	do(t, other, "POST", "/v1/co-reservations", keyAlice, map[string]any{"parts": []any{
		part("RAL", at(9), at(14), nil),
		part("Imperial", at(9), at(18), map[string]any{"after": map[string]any{"part": 0, "max_gap_seconds": 0}}),
	}}).want(t, 201).json(t, &v)
	a, b := v.Parts[0], v.Parts[1]
	if a.End.Sub(a.Start) != time.Hour || b.End.Sub(b.Start) != 30*time.Minute || !b.Start.Equal(a.End) || a.Profile != "blast" ||
		a.Prediction == nil || a.Prediction.Runs != 2 || b.Prediction == nil || b.Prediction.Runs != 1 || b.Prediction.Predictor != "TCT" {
		t.Fatalf("parts by profile: %+v", v.Parts)
	}
	do(t, posted, "POST", "/v1/co-reservations/"+v.ID+"/commit", keyAlice, nil).want(t, 200)
	r := do(t, other, "POST", "/v1/co-reservations", keyAlice, map[string]any{"parts": []any{part("RAL", at(9), at(14), map[string]any{"profile": "namd"})}}).want(t, 422)
	if p := r.problem(t); p.Errors[0].Field != "parts[0].profile" {
		t.Fatalf("an unknown profile names %q", p.Errors[0].Field)
	}

	// A booking of profile quick, 12 s from 3 s on, checked in: the ticker
	// makes it active; its job checks out a second or two later; the
	// ticker completes it at its end, and its run is recorded, to the
	// checkout (a loaded machine may start it late: the run is shorter
	// than the 12 s reserved all the same).
	start := time.Now().Add(3 * time.Second).Truncate(time.Second)
	var bk struct {
		ID string `json:"booking_id"`
	}
	do(t, posted, "POST", "/v1/bookings", keyAlice, map[string]any{"resource_id": "RAL", "start": start.Format(time.RFC3339),
		"end": start.Add(12 * time.Second).Format(time.RFC3339), "nodes": 1, "fare_class": "premium", "profile": "quick"},
		"Idempotency-Key", "quick-1").want(t, 201).json(t, &bk)
	do(t, posted, "POST", "/v1/bookings/"+bk.ID+"/commit", keyAlice, nil).want(t, 200)
	do(t, posted, "POST", "/v1/bookings/"+bk.ID+"/checkout", keyAlice, nil).want(t, 409)
	do(t, posted, "POST", "/v1/bookings/"+bk.ID+"/checkin", keyAlice, nil).want(t, 200)
	waitStatus := func(want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var b struct {
				Status string `json:"status"`
			}
			do(t, other, "GET", "/v1/bookings/"+bk.ID, keyAlice, nil).want(t, 200).json(t, &b)
			if b.Status == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("booking %s is %s after 30 s, not %s", bk.ID, b.Status, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitStatus("active")
	time.Sleep(1500 * time.Millisecond)
	do(t, other, "POST", "/v1/bookings/"+bk.ID+"/checkout", keyAlice, nil).want(t, 200)
	waitStatus("completed")
	deadline := time.Now().Add(10 * time.Second)
	for {
		p := predictionOf(t, other, "quick", "RAL")
		if p != nil {
			if p.Runs != 1 || p.Duration < 1 || p.Duration > 9 {
				t.Fatalf("the completed booking's run (checked out about 2 s after it started, of 12 reserved): %+v", p)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the completed booking recorded no run")
		}
		time.Sleep(200 * time.Millisecond)
	}
	var got struct {
		Status  string `json:"status"`
		Profile string `json:"profile"`
	}
	do(t, posted, "GET", "/v1/bookings/"+bk.ID, keyAlice, nil).want(t, 200).json(t, &got)
	if got.Status != "completed" || got.Profile != "quick" {
		t.Fatalf("the booking: %+v", got)
	}
}
