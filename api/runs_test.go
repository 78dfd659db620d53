package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking/boltstore"
	"slotfare/booking/boltstore/runsbolt"
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/runs"
	"slotfare/booking/service"
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

// TestCoReservationByProfile: parts that name a profile instead of a
// duration take the duration predicted on each resource from its runs,
// and say so; a probe by profile too.
func TestCoReservationByProfile(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	for _, body := range []string{
		`{"profile":"blast","resource_id":"RAL","runtime_seconds":3000}`,
		`{"profile":"blast","resource_id":"RAL","runtime_seconds":4200}`,
		`{"profile":"blast","resource_id":"Imperial","runtime_seconds":1800}`,
	} {
		call{"POST", "/v1/runs", kProv, body, nil}.must(t, e, 201)
	}
	body := `{"policy":"earliest","parts":[
		{"resource_id":"RAL","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 14) + `","profile":"blast"},
		{"resource_id":"Imperial","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 18) + `","profile":"blast",
		 "after":{"part":0,"max_gap_seconds":0}}]}`
	rec := call{"POST", "/v1/co-reservations", kAlice, body, nil}.run(e)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	var v struct {
		Parts []struct {
			Start, End time.Time
			Profile    string `json:"profile"`
			Prediction *struct {
				Predictor    string  `json:"predictor"`
				Duration     int64   `json:"duration_seconds"`
				Runs         int     `json:"runs"`
				MeanAbsError float64 `json:"mean_abs_error_seconds"`
			} `json:"prediction"`
		} `json:"parts"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	p0, p1 := v.Parts[0], v.Parts[1]
	if p0.End.Sub(p0.Start) != time.Hour || p1.End.Sub(p1.Start) != 30*time.Minute || !p1.Start.Equal(p0.End) {
		t.Fatalf("durations: %+v", v.Parts)
	}
	if p0.Profile != "blast" || p0.Prediction == nil || p0.Prediction.Predictor != "TCT" || p0.Prediction.Runs != 2 ||
		p0.Prediction.Duration != 3600 || p0.Prediction.MeanAbsError != 1200 || p1.Prediction == nil || p1.Prediction.Runs != 1 {
		t.Fatalf("predictions: %s", rec.Body)
	}
	// The view read back says the same.
	var id struct {
		ID string `json:"co_reservation_id"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &id); err != nil {
		t.Fatal(err)
	}
	g := call{"GET", "/v1/co-reservations/" + id.ID, kAlice, "", nil}.run(e)
	if g.Code != 200 || !strings.Contains(g.Body.String(), `"prediction":{"predictor":"TCT","duration_seconds":3600,"runs":2`) {
		t.Fatalf("get: %d %s", g.Code, g.Body)
	}

	// A probe over the vo-1 resources: each candidate with its own duration.
	pr := call{"POST", "/v1/probes", kAlice, `{"tags":["vo-1"],"nodes":1,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 12) + `","profile":"blast"}`, nil}.run(e)
	var probe struct {
		Candidates []struct {
			ResourceID string `json:"resource_id"`
			Start, End time.Time
			Prediction *struct {
				Duration int64 `json:"duration_seconds"`
			} `json:"prediction"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(pr.Body.Bytes(), &probe); err != nil || pr.Code != 200 || len(probe.Candidates) == 0 {
		t.Fatalf("probe: %d %s", pr.Code, pr.Body)
	}
	seen := map[string]bool{}
	for _, c := range probe.Candidates {
		want := map[string]time.Duration{"RAL": time.Hour, "Imperial": 30 * time.Minute}[c.ResourceID]
		if c.End.Sub(c.Start) != want || c.Prediction == nil || c.Prediction.Duration != int64(want/time.Second) {
			t.Fatalf("candidate on %s: %+v", c.ResourceID, c)
		}
		seen[c.ResourceID] = true
	}
	if !seen["RAL"] || !seen["Imperial"] {
		t.Fatalf("probe candidates from %v", seen)
	}

	part := func(extra string) string {
		return `{"resource_id":"RAL","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 11) + `"` + extra + `}`
	}
	for _, tc := range []struct {
		body  string
		field string
	}{
		{`{"parts":[` + part(`,"duration_seconds":600`) + `,` + part(`,"profile":"namd"`) + `]}`, "parts[1].profile"},
		{`{"parts":[` + part(`,"profile":"blast","duration_seconds":600`) + `]}`, "parts[0].profile"},
		{`{"parts":[` + part(``) + `]}`, "parts[0].duration_seconds"},
		{`{"parts":[` + part(`,"profile":"blast","bytes":-1`) + `]}`, "parts[0].bytes"},
		{`{"parts":[` + part(`,"duration_seconds":600,"bytes":10`) + `]}`, "parts[0].bytes"},
		{`{"parts":[` + part(`,"profile":"no spaces"`) + `]}`, "parts[0].profile"},
		// RAL predicts an hour; a 30-minute window cannot hold it.
		{`{"parts":[{"resource_id":"RAL","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + d.Add(9*time.Hour+30*time.Minute).Format(time.RFC3339) + `","profile":"blast"}]}`, "parts[0].profile"},
	} {
		c := call{"POST", "/v1/co-reservations", kAlice, tc.body, nil}
		rec := c.run(e)
		p := checkProblem(t, c, rec)
		if rec.Code != http.StatusUnprocessableEntity || p.Errors[0].Field != tc.field {
			t.Errorf("%s: %d %+v, want 422 on %s", trunc(tc.body), rec.Code, p.Errors, tc.field)
		}
	}
}

// TestOffersByProfile: POST /v1/offers with a profile instead of
// duration_seconds offers each resource's predicted duration and says so.
func TestOffersByProfile(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	for _, body := range []string{
		`{"profile":"blast","resource_id":"RAL","runtime_seconds":3600}`,
		`{"profile":"blast","resource_id":"Imperial","runtime_seconds":1800}`,
	} {
		call{"POST", "/v1/runs", kProv, body, nil}.must(t, e, 201)
	}
	var ans struct {
		Offers []struct {
			ResourceID string `json:"resource_id"`
			Start, End time.Time
			Solution   bool `json:"solution"`
			Prediction *struct {
				Predictor string `json:"predictor"`
				Duration  int64  `json:"duration_seconds"`
				Runs      int    `json:"runs"`
			} `json:"prediction"`
		} `json:"offers"`
	}
	window := `"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 12) + `"`
	rec := call{"POST", "/v1/offers", kAlice, `{"resource_id":null,` + window + `,"nodes":1,"profile":"blast"}`, nil}.must(t, e, 200)
	if err := json.Unmarshal(rec.Body.Bytes(), &ans); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, o := range ans.Offers {
		want := map[string]time.Duration{"RAL": time.Hour, "Imperial": 30 * time.Minute}[o.ResourceID]
		if o.End.Sub(o.Start) != want || o.Prediction == nil || o.Prediction.Predictor != "TCT" || o.Prediction.Duration != int64(want/time.Second) {
			t.Fatalf("offer %d: %+v", i, o)
		}
		seen[o.ResourceID] = true
	}
	if !seen["RAL"] || !seen["Imperial"] || !ans.Offers[0].Solution {
		t.Fatalf("offers: %s", rec.Body)
	}
	for _, tc := range []struct {
		body  string
		field string
	}{
		{`{` + window + `,"profile":"namd"}`, "profile"},
		{`{` + window + `,"profile":"blast","duration_seconds":600}`, "profile"},
		{`{` + window + `,"bytes":10,"duration_seconds":600}`, "bytes"},
		{`{` + window + `,"profile":"blast","bytes":-1}`, "bytes"},
		{`{"resource_id":"Atlantis",` + window + `,"profile":"blast"}`, "resource_id"},
	} {
		c := call{"POST", "/v1/offers", kAlice, tc.body, nil}
		rec := c.run(e)
		p := checkProblem(t, c, rec)
		if rec.Code != http.StatusUnprocessableEntity || p.Errors[0].Field != tc.field {
			t.Errorf("%s: %d %+v, want 422 on %s", tc.body, rec.Code, p.Errors, tc.field)
		}
	}
}

// TestHoldProfile: a hold may name a profile; the booking carries it, an
// Idempotency-Key replays only the same request with the same profile, and
// a bad profile is 422 naming it. Checkout is 409 before the job runs.
func TestHoldProfile(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	body := func(profile string) string {
		return `{"resource_id":"RAL","start":"` + hhmm(d, 9) + `","end":"` + hhmm(d, 10) + `","nodes":1,"fare_class":"premium"` + profile + `}`
	}
	rec := call{"POST", "/v1/bookings", kAlice, body(`,"profile":"blast"`), []string{"Idempotency-Key", "p1"}}.must(t, e, 201)
	var b struct {
		ID      string `json:"booking_id"`
		Profile string `json:"profile"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || b.Profile != "blast" {
		t.Fatalf("hold: %v %s", err, rec.Body)
	}
	call{"POST", "/v1/bookings", kAlice, body(`,"profile":"blast"`), []string{"Idempotency-Key", "p1"}}.must(t, e, 201)
	for _, c := range []call{
		{"POST", "/v1/bookings", kAlice, body(""), []string{"Idempotency-Key", "p1"}},
		{"POST", "/v1/bookings", kAlice, body(`,"profile":"namd"`), []string{"Idempotency-Key", "p1"}},
	} {
		if rec := c.run(e); rec.Code != http.StatusConflict {
			t.Errorf("the key with another profile: %d %s", rec.Code, rec.Body)
		}
	}
	for _, p := range []string{`,"profile":""`, `,"profile":"a b"`} {
		c := call{"POST", "/v1/bookings", kAlice, body(p), []string{"Idempotency-Key", "p2" + p}}
		rec := c.run(e)
		if pr := checkProblem(t, c, rec); rec.Code != http.StatusUnprocessableEntity || pr.Errors[0].Field != "profile" {
			t.Errorf("profile %s: %d %+v", p, rec.Code, pr.Errors)
		}
	}
	c := call{"POST", "/v1/bookings/" + b.ID + "/checkout", kAlice, "", nil}
	if rec := c.run(e); rec.Code != http.StatusConflict {
		t.Errorf("checkout of a held booking: %d %s", rec.Code, rec.Body)
	}
}

// newRunsServer is newTestServer on the demo configuration with its
// "runs" object replaced by runsConfig, its runs on rst, recorded at now().
func newRunsServer(t *testing.T, runsConfig string, rst runs.Store, now func() time.Time) *echo.Echo {
	t.Helper()
	dir := t.TempDir()
	store, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(slotfare.DemoConfig, &doc); err != nil {
		t.Fatal(err)
	}
	doc["runs"] = json.RawMessage(runsConfig)
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.DecodeConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(cfg, deploytest.Embedded(t, store), service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	e := New(svc, Options{Ready: readyOf(svc), Metrics: NewMetrics(), Runs: runs.NewService(rst, svc, runs.Options{Now: now, Limits: cfg.Runs})})
	validating.Store(e, t)
	t.Cleanup(func() { validating.Delete(e) })
	return e
}

// TestRunsOverQuota: configured with runs.max_per_hour 50, an account may
// post 50 runs on a resource in an hour, on the embedded store and on a
// real redis-server. The 51st is 429 naming runs.max_per_hour, with a
// limit member and Retry-After (when the first leaves the hour); another
// account and the next hour may post. A run finished more than the default
// 90 days ago is 422 naming finished_at: it would not count.
func TestRunsOverQuota(t *testing.T) {
	stores := map[string]func(t *testing.T) runs.Store{
		"bolt": func(t *testing.T) runs.Store {
			rst, err := runsbolt.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rst.Close() })
			return rst
		},
		"redis": func(t *testing.T) runs.Store { return redisstore.NewRuns(redistest.Start(t), "sf") },
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			clk := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
			e := newRunsServer(t, `{"max_per_hour":50}`, open(t), func() time.Time { return clk })
			post := func(key, body string) *httptest.ResponseRecorder {
				return call{"POST", "/v1/runs", key, body, nil}.run(e)
			}
			const perHour = 50
			for i := 0; i < perHour; i++ {
				if rec := post(kAlice, fmt.Sprintf(`{"profile":"blast","resource_id":"RAL","runtime_seconds":%d}`, 60+i)); rec.Code != http.StatusCreated {
					t.Fatalf("run %d: %d %s", i, rec.Code, rec.Body)
				}
			}
			c := call{"POST", "/v1/runs", kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":60}`, nil}
			rec := c.run(e)
			if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "3600" {
				t.Fatalf("run %d: %d Retry-After %q %s", perHour+1, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
			}
			p := checkProblem(t, c, rec)
			if len(p.Errors) != 1 || p.Errors[0].Field != "runs.max_per_hour" || p.Limit == nil ||
				*p.Limit != (LimitProblem{ResourceID: "RAL", Name: "max_per_hour", Limit: perHour, Held: perHour, Requested: 1, RetryAfterSeconds: 3600}) {
				t.Fatalf("problem: %+v %+v", p, p.Limit)
			}
			if rec := post(kProv, `{"profile":"blast","resource_id":"RAL","runtime_seconds":60}`); rec.Code != http.StatusCreated {
				t.Fatalf("another account: %d %s", rec.Code, rec.Body)
			}
			old := clk.Add(-91 * 24 * time.Hour).Format(time.RFC3339)
			c = call{"POST", "/v1/runs", kProv, `{"profile":"blast","resource_id":"RAL","runtime_seconds":60,"finished_at":"` + old + `"}`, nil}
			if p := checkProblem(t, c, c.run(e)); p.Status != http.StatusUnprocessableEntity || len(p.Errors) != 1 || p.Errors[0].Field != "finished_at" {
				t.Fatalf("a run past its age: %+v", p)
			}
			clk = clk.Add(time.Hour)
			if rec := post(kAlice, `{"profile":"blast","resource_id":"RAL","runtime_seconds":60}`); rec.Code != http.StatusCreated {
				t.Fatalf("the next hour: %d %s", rec.Code, rec.Body)
			}
		})
	}
}
