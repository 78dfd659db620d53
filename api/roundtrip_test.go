package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestSettingsRoundTrip is issue 9 #12: every setting a provider reads back
// can be written back unchanged. For every GET/PUT pair: GET, PUT the same
// body (200), GET again: the same.
func TestSettingsRoundTrip(t *testing.T) {
	e, _ := newTestServer(t)
	get := func(path string) []byte {
		t.Helper()
		rec := call{"GET", path, kProv, "", nil}.run(e)
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	same := func(a, b []byte) bool {
		var x, y any
		return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
	}
	// Settings as a provider leaves them: service-level with the default
	// denial, and the defaults of a PUT that names only the policy.
	for _, body := range []string{`{"policy":"service-level","service_level":0.05}`, `{"policy":"risk"}`, `{"policy":"none","denial":"lc-dcf"}`} {
		rec := call{"PUT", "/v1/resources/RAL/overbooking", kProv, body, nil}.run(e)
		if rec.Code != 200 {
			t.Fatalf("PUT overbooking %s: %d %s", body, rec.Code, rec.Body)
		}
		for _, part := range []string{"/overbooking", "/fare-classes", "/rate-periods", "/pricing", "/limits-config", ""} {
			path := "/v1/resources/RAL" + part
			before := get(path)
			rec := call{"PUT", path, kProv, string(before), nil}.run(e)
			if rec.Code != 200 {
				t.Fatalf("PUT %s with what GET gave (%s): %d %s", path, before, rec.Code, rec.Body)
			}
			if !same(rec.Body.Bytes(), before) {
				t.Errorf("PUT %s answered %s, GET gave %s", path, rec.Body, before)
			}
			if after := get(path); !same(after, before) {
				t.Errorf("GET %s after the PUT: %s, before %s", path, after, before)
			}
		}
	}
}

// TestOverbookingDefaults is the first half of issue 9 #12: a PUT that
// leaves out denial used to switch a DCF resource to lottery (three places,
// three defaults), and its answer echoed service_level 0, which a PUT then
// refused.
func TestOverbookingDefaults(t *testing.T) {
	e, _ := newTestServer(t)
	put := func(body string) map[string]any {
		t.Helper()
		rec := call{"PUT", "/v1/resources/RAL/overbooking", kProv, body, nil}.run(e)
		if rec.Code != 200 {
			t.Fatalf("PUT %s: %d %s", body, rec.Code, rec.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	put(`{"policy":"none","denial":"dcf"}`)
	got := put(`{"policy":"risk"}`)
	want := map[string]any{"policy": "risk", "service_level": 0.01, "denial": "dcf"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PUT {policy: risk} answered %v, want %v", got, want)
	}
	rec := call{"GET", "/v1/resources/RAL", kProv, "", nil}.run(e)
	var r struct {
		Overbooking map[string]any `json:"overbooking"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || !reflect.DeepEqual(r.Overbooking, want) {
		t.Errorf("GET resource overbooking %v (%v), want %v", r.Overbooking, err, want)
	}
	// An explicit zero is no service level, and is refused, not defaulted.
	rec = call{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"service-level","service_level":0}`, nil}.run(e)
	if p := checkProblem(t, call{"PUT", "/v1/resources/RAL/overbooking", kProv, "", nil}, rec); rec.Code != 422 || !bytes.Contains(rec.Body.Bytes(), []byte("service_level")) {
		t.Errorf("service_level 0: %d %+v", rec.Code, p)
	}
}
