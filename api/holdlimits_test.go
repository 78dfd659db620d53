package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHoldLimitsOverHTTP: a resource's hold_limits are PUT and read back in
// one shape (defaults filled in) and written back unchanged; a hold past
// max_holds is 429 problem+json naming the limit, with Retry-After; a hold
// larger than max_held_node_seconds on its own is 422 naming nodes; bad
// limits are 4xx naming the field.
func TestHoldLimitsOverHTTP(t *testing.T) {
	e, _ := newTestServer(t)
	run := func(c call, status int) []byte {
		t.Helper()
		rec := c.run(e)
		if rec.Code != status {
			t.Fatalf("%s %s %s: %d, want %d: %s", c.method, c.path, c.body, rec.Code, status, rec.Body)
		}
		return rec.Body.Bytes()
	}
	type limits struct {
		MaxHolds           int64 `json:"max_holds"`
		MaxHeldNodeSeconds int64 `json:"max_held_node_seconds"`
	}
	readLimits := func(body []byte) limits {
		t.Helper()
		var r struct {
			HoldLimits *limits `json:"hold_limits"`
		}
		if err := json.Unmarshal(body, &r); err != nil || r.HoldLimits == nil {
			t.Fatalf("no hold_limits in %s: %v", body, err)
		}
		return *r.HoldLimits
	}
	// The demo's resources show their defaults: 100 holds, nodes x 24 h.
	if got := readLimits(run(call{"GET", "/v1/resources/Torino", kAlice, "", nil}, 200)); got != (limits{100, 2 * 86400}) {
		t.Fatalf("Torino's hold limits %+v", got)
	}
	spec := `{"nodes":4,"base_cost":"0.10","currency":"GRD","time_zone":"UTC","hold_limits":{"max_holds":2}}`
	if got := readLimits(run(call{"PUT", "/v1/resources/HL", kProv, spec, nil}, 201)); got != (limits{2, 4 * 86400}) {
		t.Fatalf("PUT answered hold limits %+v", got)
	}
	got := run(call{"GET", "/v1/resources/HL", kAlice, "", nil}, 200)
	if l := readLimits(got); l != (limits{2, 4 * 86400}) {
		t.Fatalf("GET hold limits %+v", l)
	}
	// What GET shows is what PUT takes.
	var back struct {
		HoldLimits json.RawMessage `json:"hold_limits"`
	}
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	spec = `{"nodes":4,"base_cost":"0.10","currency":"GRD","time_zone":"UTC","hold_limits":` + string(back.HoldLimits) + `}`
	if l := readLimits(run(call{"PUT", "/v1/resources/HL", kProv, spec, nil}, 200)); l != (limits{2, 4 * 86400}) {
		t.Fatalf("written back: %+v", l)
	}

	start := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
	hold := func(i, nodes int, d time.Duration) call {
		st := start.Add(time.Duration(i) * time.Hour)
		return call{"POST", "/v1/bookings", kAlice, fmt.Sprintf(`{"resource_id":"HL","start":%q,"end":%q,"nodes":%d,"fare_class":"premium"}`,
			st.Format(time.RFC3339), st.Add(d).Format(time.RFC3339), nodes), []string{"Idempotency-Key", "hl-" + strconv.Itoa(i)}}
	}
	run(hold(0, 1, time.Hour), 201)
	run(hold(1, 1, time.Hour), 201)
	c := hold(2, 1, time.Hour)
	rec := c.run(e)
	p := checkProblem(t, c, rec)
	if rec.Code != http.StatusTooManyRequests || p.Type != problemType+"limit-exceeded" {
		t.Fatalf("third hold: %d %s", rec.Code, rec.Body)
	}
	if len(p.Errors) != 1 || p.Errors[0].Field != "hold_limits.max_holds" || !strings.Contains(p.Detail, "hold_limits.max_holds is 2") {
		t.Fatalf("problem does not name the limit: %s", rec.Body)
	}
	ra, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	if err != nil || ra < 1 || ra > 601 { // expiries are whole seconds, rounded up
		t.Fatalf("Retry-After %q: want the seconds until the first hold expires (hold_seconds 600)", rec.Header().Get("Retry-After"))
	}
	if l := p.Limit; l == nil || *l != (LimitProblem{ResourceID: "HL", Name: "max_holds", Limit: 2, Held: 2, Requested: 1, RetryAfterSeconds: int64(ra)}) {
		t.Fatalf("limit member %+v", p.Limit)
	}
	// Refused, the key is free: the same request later is a new attempt.
	// Bob is another account with his own allowance.
	run(call{"POST", "/v1/bookings", kBob, c.body, c.hdr}, 201)

	// One hold larger than the whole node-seconds limit: 422, no wait helps.
	c = hold(10, 4, 25*time.Hour)
	rec = c.run(e)
	p = checkProblem(t, c, rec)
	if rec.Code != http.StatusUnprocessableEntity || len(p.Errors) != 1 || p.Errors[0].Field != "nodes" || rec.Header().Get("Retry-After") != "" {
		t.Fatalf("oversized hold: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	if l := p.Limit; l == nil || *l != (LimitProblem{ResourceID: "HL", Name: "max_held_node_seconds", Limit: 4 * 86400, Requested: 4 * 25 * 3600}) {
		t.Fatalf("limit member %+v", p.Limit)
	}

	for _, bad := range []struct {
		hl     string
		status int
		field  string
	}{
		{`{"max_holds":0}`, 422, "hold_limits.max_holds"},
		{`{"max_holds":-1}`, 422, "hold_limits.max_holds"},
		{`{"max_holds":2000000}`, 422, "hold_limits.max_holds"},
		{`{"max_held_node_seconds":0}`, 422, "hold_limits.max_held_node_seconds"},
		{`{"max_held_node_seconds":1000000000000000000}`, 422, "hold_limits.max_held_node_seconds"},
		{`{"max_holds":"2"}`, 400, "hold_limits.max_holds"},
		{`{"max_hold":2}`, 400, ""},
	} {
		c := call{"PUT", "/v1/resources/HL", kProv, `{"nodes":4,"base_cost":"0.10","currency":"GRD","time_zone":"UTC","hold_limits":` + bad.hl + `}`, nil}
		rec := c.run(e)
		p := checkProblem(t, c, rec)
		if rec.Code != bad.status || (bad.field != "" && (len(p.Errors) != 1 || p.Errors[0].Field != bad.field)) {
			t.Errorf("hold_limits %s: %d %s, want %d naming %q", bad.hl, rec.Code, rec.Body, bad.status, bad.field)
		}
	}
	// The failed PUTs changed nothing.
	if l := readLimits(run(call{"GET", "/v1/resources/HL", kAlice, "", nil}, 200)); l != (limits{2, 4 * 86400}) {
		t.Fatalf("hold limits after refused PUTs %+v", l)
	}

	// The OpenAPI document describes the 429 and the limits.
	var doc struct {
		Paths      map[string]map[string]struct{ Responses map[string]json.RawMessage } `json:"paths"`
		Components struct{ Schemas map[string]json.RawMessage }                         `json:"components"`
	}
	if err := json.Unmarshal(openAPIJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	if r := doc.Paths["/v1/bookings"]["post"].Responses["429"]; !strings.Contains(string(r), "Retry-After") {
		t.Fatalf("POST /v1/bookings 429: %s", r)
	}
	for _, s := range []string{"ResourceConfig", "Resource", "Problem"} {
		if !strings.Contains(string(doc.Components.Schemas[s]), "hold_limits") && !strings.Contains(string(doc.Components.Schemas[s]), "LimitProblem") {
			t.Errorf("schema %s does not mention the hold limits: %s", s, doc.Components.Schemas[s])
		}
	}
}
