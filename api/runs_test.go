package api

import (
	"encoding/json"
	"net/http"
	"testing"
)

// runAnswer is a stored run as POST /v1/runs answers it.
type runAnswer struct {
	ID         string  `json:"run_id"`
	Profile    string  `json:"profile"`
	ResourceID string  `json:"resource_id"`
	Runtime    float64 `json:"runtime_seconds"`
	Transfer   float64 `json:"transfer_seconds"`
	Bytes      int64   `json:"bytes_transferred"`
	AccountID  string  `json:"account_id"`
	FinishedAt string  `json:"finished_at"`
}

func TestPostRunsAndPrediction(t *testing.T) {
	e, _ := newTestServer(t)
	post := func(key, body string, want int) runAnswer {
		t.Helper()
		c := call{"POST", "/v1/runs", key, body, nil}
		rec := c.run(e)
		if rec.Code != want {
			t.Fatalf("%s: %d, want %d: %s", body, rec.Code, want, rec.Body)
		}
		var r runAnswer
		if want < 300 {
			if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	// Alice (VO 1) on RAL (VO 1), the provider anywhere.
	r := post(kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":100,"finished_at":"2026-11-01T10:00:00Z","run_id":"a1"}`, 201)
	if r.ID != "a1" || r.Runtime != 100 || r.AccountID != "alice" || r.FinishedAt != "2026-11-01T10:00:00Z" {
		t.Fatalf("stored: %+v", r)
	}
	// The same run again is the stored one (200), not a second run.
	post(kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":100,"finished_at":"2026-11-01T10:00:00Z","run_id":"a1"}`, 200)
	post(kProv, `{"profile":"blast","resource_id":"RAL","runtime_seconds":150,"transfer_seconds":50,"bytes_transferred":5000,"finished_at":"2026-11-01T11:00:00Z"}`, 201)
	post(kProv, `{"profile":"blast","resource_id":"NorduGrid","runtime_seconds":10}`, 201)

	var ans struct {
		Prediction *struct {
			Predictor    string  `json:"predictor"`
			Duration     int64   `json:"duration_seconds"`
			Runs         int     `json:"runs"`
			Scored       int     `json:"scored_runs"`
			MeanAbsError float64 `json:"mean_abs_error_seconds"`
		} `json:"prediction"`
	}
	get := func(key, q string) {
		t.Helper()
		rec := call{"GET", "/v1/runs?" + q, key, "", nil}.run(e)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", q, rec.Code, rec.Body)
		}
		ans.Prediction = nil
		if err := json.Unmarshal(rec.Body.Bytes(), &ans); err != nil {
			t.Fatal(err)
		}
	}
	// TCT: (100 + 200) / 2, the second run predicted as 100 (error 100).
	get(kBob, "profile=blast&resource_id=RAL")
	if p := ans.Prediction; p == nil || p.Predictor != "TCT" || p.Duration != 150 || p.Runs != 2 || p.Scored != 1 || p.MeanAbsError != 100 {
		t.Fatalf("TCT: %+v", p)
	}
	// ETTS with 10000 B at 100 B/s: 125 s of runtime + 100 s.
	get(kProv, "profile=blast&resource_id=RAL&bytes=10000&start=2026-11-02T11:00:00Z")
	if p := ans.Prediction; p == nil || p.Predictor != "ETTS" || p.Duration != 225 || p.Runs != 2 {
		t.Fatalf("ETTS: %+v", p)
	}
	get(kAlice, "profile=namd&resource_id=RAL")
	if ans.Prediction != nil {
		t.Fatalf("unknown profile: %+v", ans.Prediction)
	}

	for _, tc := range []struct {
		key, body string
		status    int
		field     string
	}{
		{kAlice, `{"profile":"","resource_id":"RAL","runtime_seconds":1}`, 422, "profile"},
		{kAlice, `{"resource_id":"RAL","runtime_seconds":1}`, 422, "profile"},
		{kAlice, `{"profile":"has space","resource_id":"RAL","runtime_seconds":1}`, 422, "profile"},
		{kAlice, `{"profile":"blast","resource_id":"Atlantis","runtime_seconds":1}`, 422, "resource_id"},
		{kAlice, `{"profile":"blast","runtime_seconds":1}`, 422, "resource_id"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":0}`, 422, "runtime_seconds"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":-5}`, 422, "runtime_seconds"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1e300}`, 422, "runtime_seconds"},
		{kAlice, `{"profile":"blast","resource_id":"RAL"}`, 422, "runtime_seconds"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1,"transfer_seconds":-1}`, 422, "transfer_seconds"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1,"bytes_transferred":-1}`, 422, "bytes_transferred"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1,"bytes_transferred":10}`, 422, "transfer_seconds"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1,"finished_at":"yesterday"}`, 422, "finished_at"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1,"finished_at":"2999-01-01T00:00:00Z"}`, 422, "finished_at"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1,"run_id":"x y"}`, 422, "run_id"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":101,"finished_at":"2026-11-01T10:00:00Z","run_id":"a1"}`, 409, "run_id"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":"1"}`, 400, "runtime_seconds"},
		{kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1,"color":"red"}`, 400, "color"},
		{kBob, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1}`, 403, ""},
		{kBill, `{"profile":"blast","resource_id":"RAL","runtime_seconds":1}`, 403, ""},
	} {
		c := call{"POST", "/v1/runs", tc.key, tc.body, nil}
		rec := c.run(e)
		p := checkProblem(t, c, rec)
		if rec.Code != tc.status || (tc.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tc.field)) {
			t.Errorf("%s: %d %+v, want %d on %s", tc.body, rec.Code, p.Errors, tc.status, tc.field)
		}
	}
	for _, tc := range []struct {
		q      string
		status int
		field  string
	}{
		{"resource_id=RAL", 422, "profile"},
		{"profile=blast", 422, "resource_id"},
		{"profile=blast&resource_id=Atlantis", 422, "resource_id"},
		{"profile=blast&resource_id=RAL&bytes=-1", 422, "bytes"},
		{"profile=blast&resource_id=RAL&start=soon", 422, "start"},
		{"profile=blast&resource_id=RAL&nodes=2", 400, "nodes"},
	} {
		c := call{"GET", "/v1/runs?" + tc.q, kAlice, "", nil}
		rec := c.run(e)
		p := checkProblem(t, c, rec)
		if rec.Code != tc.status || p.Errors[0].Field != tc.field {
			t.Errorf("GET %s: %d %+v, want %d on %s", tc.q, rec.Code, p.Errors, tc.status, tc.field)
		}
	}
}
