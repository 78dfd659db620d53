package api

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestShrinkThenRefusedModifyOverHTTP replays issue 9's defect 1 as it was
// found: a 4-node resource, two committed 2-node bookings on one hour, the
// provider lowers it to 3 nodes, a PATCH to 3 nodes is refused (409) — and
// then a 1-node hold on that hour must be refused too, not make 5 on 3.
func TestShrinkThenRefusedModifyOverHTTP(t *testing.T) {
	e, _ := newTestServer(t)
	do := func(c call, status int) []byte {
		t.Helper()
		rec := c.run(e)
		if rec.Code != status {
			t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, rec.Code, status, rec.Body)
		}
		return rec.Body.Bytes()
	}
	spec := func(nodes string) string {
		return `{"nodes":` + nodes + `,"base_cost":"0.10","currency":"GRD","time_zone":"UTC"}`
	}
	do(call{"PUT", "/v1/resources/FOUR", kProv, spec("4"), nil}, 201)
	start := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
	hold := func(key, idem string, nodes string) string {
		body := `{"resource_id":"FOUR","start":"` + start.Format(time.RFC3339) + `","end":"` + start.Add(time.Hour).Format(time.RFC3339) +
			`","nodes":` + nodes + `,"fare_class":"premium"}`
		var b struct {
			ID string `json:"booking_id"`
		}
		if err := json.Unmarshal(do(call{"POST", "/v1/bookings", key, body, []string{"Idempotency-Key", idem}}, 201), &b); err != nil {
			t.Fatal(err)
		}
		return b.ID
	}
	a := hold(kAlice, "a", "2")
	b := hold(kBob, "b", "2")
	do(call{"POST", "/v1/bookings/" + a + "/commit", kAlice, "", nil}, 200)
	do(call{"POST", "/v1/bookings/" + b + "/commit", kBob, "", nil}, 200)
	do(call{"PUT", "/v1/resources/FOUR", kProv, spec("3"), nil}, 200)
	do(call{"PATCH", "/v1/bookings/" + a, kAlice, `{"nodes":3}`, nil}, 409)
	body := `{"resource_id":"FOUR","start":"` + start.Format(time.RFC3339) + `","end":"` + start.Add(time.Hour).Format(time.RFC3339) +
		`","nodes":1,"fare_class":"premium"}`
	rec := call{"POST", "/v1/bookings", kBob, body, []string{"Idempotency-Key", "c"}}.run(e)
	if rec.Code != 409 {
		t.Fatalf("a 1-node hold on a hour that holds 4 nodes on 3: %d %s, want 409", rec.Code, rec.Body)
	}
	checkProblem(t, call{"POST", "/v1/bookings", kBob, body, nil}, rec)
}

// TestProblemListsEveryInvalidField: a resource PUT with several faults
// answers one 422 naming each field (issue 10), not only the first.
func TestProblemListsEveryInvalidField(t *testing.T) {
	e, _ := newTestServer(t)
	c := call{"PUT", "/v1/resources/BAD", kProv, `{"nodes":0,"base_cost":"0.10","currency":"euro","time_zone":"UTC","tags":["a","a"]}`, nil}
	rec := c.run(e)
	if rec.Code != 422 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	p := checkProblem(t, c, rec)
	var fields []string
	for _, f := range p.Errors {
		fields = append(fields, f.Field)
	}
	if want := "[nodes currency tags[1]]"; fmt.Sprint(fields) != want {
		t.Fatalf("errors name %v, want %s: %s", fields, want, rec.Body)
	}
}

// TestHoldNamesEveryFault: a hold with a bad interval, an unknown class and
// too many nodes is one 422 naming all three.
func TestHoldNamesEveryFault(t *testing.T) {
	e, _ := newTestServer(t)
	start := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
	body := `{"resource_id":"RAL","start":"` + start.Format(time.RFC3339) + `","end":"` + start.Add(-time.Hour).Format(time.RFC3339) +
		`","nodes":100000,"fare_class":"first"}`
	c := call{"POST", "/v1/bookings", kAlice, body, []string{"Idempotency-Key", "many"}}
	rec := c.run(e)
	p := checkProblem(t, c, rec)
	var fields []string
	for _, f := range p.Errors {
		fields = append(fields, f.Field)
	}
	if want := "[end fare_class nodes]"; rec.Code != 422 || fmt.Sprint(fields) != want {
		t.Fatalf("%d naming %v, want 422 naming %s: %s", rec.Code, fields, want, rec.Body)
	}
}
