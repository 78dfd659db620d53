package api

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
)

// jsonOf decodes an answer into a generic value (numbers as float64), for
// comparing bodies whatever their key order.
func jsonOf(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

// must runs c and fails unless it answers status.
func (c call) must(t *testing.T, e *echo.Echo, status int) *httptest.ResponseRecorder {
	t.Helper()
	rec := c.run(e)
	if rec.Code != status {
		t.Fatalf("%s %s %s: %d %s, want %d", c.method, c.path, trunc(c.body), rec.Code, rec.Body, status)
	}
	return rec
}

// wantProblem runs c and checks a problem of status naming field whose
// detail contains every one of words.
func (c call) wantProblem(t *testing.T, e *echo.Echo, status int, field string, words ...string) Problem {
	t.Helper()
	rec := c.run(e)
	p := checkProblem(t, c, rec)
	if rec.Code != status || (field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != field)) {
		t.Fatalf("%s %s %s: %d %s, want %d naming %q", c.method, c.path, trunc(c.body), rec.Code, rec.Body, status, field)
	}
	for _, w := range words {
		if !strings.Contains(rec.Body.String(), w) {
			t.Errorf("%s %s: problem %s does not say %q", c.method, c.path, rec.Body, w)
		}
	}
	return p
}

// TestResourceGetPutRoundTrip closes issue 9 #12 for the resource itself
// (issue 10): for every resource of the demo, and after a provider changed
// every part, what GET /v1/resources/{id} answers is accepted by PUT
// unchanged (200) and GET answers the same again.
func TestResourceGetPutRoundTrip(t *testing.T) {
	e, _ := newTestServer(t)
	roundTrip := func(id string) {
		t.Helper()
		path := "/v1/resources/" + id
		before := call{"GET", path, kProv, "", nil}.must(t, e, 200).Body.Bytes()
		put := call{"PUT", path, kProv, string(before), nil}.must(t, e, 200)
		if !reflect.DeepEqual(jsonOf(t, put.Body.Bytes()), jsonOf(t, before)) {
			t.Errorf("PUT %s answered %s, GET gave %s", path, put.Body, before)
		}
		after := call{"GET", path, kProv, "", nil}.must(t, e, 200).Body.Bytes()
		if !reflect.DeepEqual(jsonOf(t, after), jsonOf(t, before)) {
			t.Errorf("GET %s after PUT of its own body:\n%s\nbefore:\n%s", path, after, before)
		}
	}
	var list struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(call{"GET", "/v1/resources", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &list); err != nil || len(list.Data) == 0 {
		t.Fatalf("listing: %v %v", list, err)
	}
	for _, r := range list.Data {
		for _, f := range []string{"id", "nodes", "base_cost", "currency", "time_zone", "slot_seconds", "hold_seconds", "vo", "tags",
			"fare_classes", "rate_periods", "overbooking", "limits", "hold_limits", "has_queue"} {
			if _, ok := r[f]; !ok {
				t.Errorf("resource %v has no %q", r["id"], f)
			}
		}
		roundTrip(r["id"].(string))
	}
	// A resource created bare, then changed part by part, round-trips too.
	call{"PUT", "/v1/resources/LAB", kProv, `{"nodes":8,"base_cost":"0.10","time_zone":"UTC"}`, nil}.must(t, e, 201)
	call{"PUT", "/v1/resources/LAB/limits-config", kProv, `{"method":"emsr-a","min_history":2,"protection_levels":{"peak":[1,4]},"show_rates":{"peak":0.9}}`, nil}.must(t, e, 200)
	call{"PUT", "/v1/resources/LAB/overbooking", kProv, `{"policy":"risk"}`, nil}.must(t, e, 200)
	call{"PUT", "/v1/resources/LAB/queue", kProv, `{"now":0,"capacity":8,"running":[],"queued":[],"reservations":[],"policy":"fcfs"}`, nil}.run(e)
	roundTrip("LAB")
	// Parts left out keep their values; vo null and tags [] clear them.
	call{"PUT", "/v1/resources/LAB", kProv, `{"nodes":8,"base_cost":"0.10","time_zone":"UTC","vo":"atlas","tags":["gpu"]}`, nil}.must(t, e, 200)
	var got map[string]any
	json.Unmarshal(call{"GET", "/v1/resources/LAB", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &got)
	if got["vo"] != "atlas" || !reflect.DeepEqual(got["tags"], []any{"gpu"}) || got["limits"].(map[string]any)["method"] != "emsr-a" ||
		got["overbooking"].(map[string]any)["policy"] != "risk" {
		t.Errorf("after a PUT naming vo and tags only: %v", got)
	}
	call{"PUT", "/v1/resources/LAB", kProv, `{"nodes":8,"base_cost":"0.10","time_zone":"UTC","vo":null,"tags":[]}`, nil}.must(t, e, 200)
	json.Unmarshal(call{"GET", "/v1/resources/LAB", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &got)
	if got["vo"] != nil || !reflect.DeepEqual(got["tags"], []any{}) {
		t.Errorf("vo null and tags [] left vo %v tags %v", got["vo"], got["tags"])
	}

	// Read-only fields: id must be the path's, has_queue what is stored.
	ral := call{"GET", "/v1/resources/RAL", kProv, "", nil}.must(t, e, 200).Body.String()
	call{"PUT", "/v1/resources/RAL2", kProv, ral, nil}.wantProblem(t, e, 422, "id", "RAL")
	call{"PUT", "/v1/resources/RAL", kProv, strings.Replace(ral, `"has_queue":false`, `"has_queue":true`, 1), nil}.wantProblem(t, e, 422, "has_queue", "/queue")
	// Shape errors are 400 naming the field, as for every body.
	call{"PUT", "/v1/resources/RAL", kProv, strings.Replace(ral, `"method":"emsr-b"`, `"method":7`, 1), nil}.wantProblem(t, e, 400, "limits.method")
	call{"PUT", "/v1/resources/RAL", kProv, strings.Replace(ral, `"min_history":4`, `"min_histroy":4`, 1), nil}.wantProblem(t, e, 400, "")
}

// demoResource is resource i of testdata/demo.json as the file writes it.
func demoResource(t *testing.T, i int) map[string]any {
	t.Helper()
	var cfg struct {
		Resources []map[string]any `json:"resources"`
	}
	if err := json.Unmarshal(slotfare.DemoConfig, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg.Resources[i]
}

// TestRuntimeResourceLikeFile: the configuration file's resource object,
// PUT under another id, makes a resource that GET, offers and booking
// control cannot tell from the file's (issue 10: "a runtime resource
// behaves exactly like one from the file").
func TestRuntimeResourceLikeFile(t *testing.T) {
	e, _ := newTestServer(t)
	obj := demoResource(t, 0)
	if obj["id"] != "RAL" {
		t.Fatalf("demo resource 0 is %v", obj["id"])
	}
	obj["id"] = "RAL-TWIN"
	body, _ := json.Marshal(obj)
	call{"PUT", "/v1/resources/RAL-TWIN", kProv, string(body), nil}.must(t, e, 201)

	strip := func(v any, keys ...string) any {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range keys {
				delete(x, k)
			}
			for _, y := range x {
				_ = y
			}
		}
		return v
	}
	get := func(path string, keys ...string) any {
		t.Helper()
		return strip(jsonOf(t, call{"GET", path, kProv, "", nil}.must(t, e, 200).Body.Bytes()), keys...)
	}
	if a, b := get("/v1/resources/RAL", "id"), get("/v1/resources/RAL-TWIN", "id"); !reflect.DeepEqual(a, b) {
		t.Errorf("GET bodies differ:\nfile:    %v\nruntime: %v", a, b)
	}
	// The next weekday's peak and the night after, in London.
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)
	for day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {
		day = day.AddDate(0, 0, 1)
	}
	from, to := day.Format(time.RFC3339), day.Add(36*time.Hour).Format(time.RFC3339)
	q := "?from=" + from + "&to=" + to
	if a, b := get("/v1/resources/RAL/limits"+q, "resource_id"), get("/v1/resources/RAL-TWIN/limits"+q, "resource_id"); !reflect.DeepEqual(a, b) {
		t.Errorf("limits differ:\nfile:    %v\nruntime: %v", a, b)
	}
	offers := func(id string) []any {
		t.Helper()
		rec := call{"POST", "/v1/offers", kAlice, `{"resource_id":"` + id + `","earliest_start":"` + day.Add(8*time.Hour).Format(time.RFC3339) +
			`","latest_end":"` + day.Add(20*time.Hour).Format(time.RFC3339) + `","duration_seconds":7200,"nodes":4,"fare_class":"business"}`, nil}.must(t, e, 200)
		var out struct {
			Offers []map[string]any `json:"offers"`
		}
		json.Unmarshal(rec.Body.Bytes(), &out)
		var list []any
		for _, o := range out.Offers {
			list = append(list, strip(o, "offer_id", "resource_id", "expires_at"))
		}
		return list
	}
	a, b := offers("RAL"), offers("RAL-TWIN")
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Errorf("offers differ:\nfile:    %v\nruntime: %v", a, b)
	}
}

// shoulderPricing is RAL's pricing with a "shoulder" period cut out of the
// weekday peak (06:00-08:00 and 16:00-18:00) and its taus.
const shoulderPricing = `{"rate_periods":[
 {"name":"super_saver","days":"weekdays","from":"00:00","to":"06:00"},
 {"name":"shoulder","days":"weekdays","from":"06:00","to":"08:00"},
 {"name":"peak","days":"weekdays","from":"08:00","to":"16:00"},
 {"name":"shoulder","days":"weekdays","from":"16:00","to":"18:00"},
 {"name":"off_peak","days":"weekdays","from":"18:00","to":"24:00"},
 {"name":"super_saver","days":"weekends","from":"18:00","to":"06:00"},
 {"name":"off_peak","days":"weekends","from":"06:00","to":"18:00"}],
"fare_classes":[
 {"name":"premium","rank":1,"tau":{"peak":"3.38","shoulder":"3.00","off_peak":"2.63","super_saver":"1.88"},"penalty_rate":"0","denied_cost_factor":"5","vo":null},
 {"name":"business","rank":2,"tau":{"peak":"2.81","shoulder":"2.50","off_peak":"2.19","super_saver":"1.56"},"penalty_rate":"0.10","denied_cost_factor":"4","vo":"1"},
 {"name":"budget","rank":3,"tau":{"peak":"2.25","shoulder":"2.00","off_peak":"1.75","super_saver":"1.25"},"penalty_rate":"0.25","denied_cost_factor":"3","vo":"1"}]}`

// TestPricingTogether: a provider adds a "shoulder" period and its taus in
// one request (issue 10: each half-PUT refused the other, a deadlock); the
// half-PUTs still validate against the other half as stored and say where
// to change both.
func TestPricingTogether(t *testing.T) {
	e, _ := newTestServer(t)
	var both struct {
		RatePeriods json.RawMessage `json:"rate_periods"`
		FareClasses json.RawMessage `json:"fare_classes"`
	}
	json.Unmarshal([]byte(shoulderPricing), &both)
	call{"PUT", "/v1/resources/RAL/rate-periods", kProv, string(both.RatePeriods), nil}.wantProblem(t, e, 422, "rate_periods", "/v1/resources/RAL/pricing")
	call{"PUT", "/v1/resources/RAL/fare-classes", kProv, string(both.FareClasses), nil}.wantProblem(t, e, 422, "[0].tau.shoulder", "/v1/resources/RAL/pricing")

	rec := call{"PUT", "/v1/resources/RAL/pricing", kProv, shoulderPricing, nil}.must(t, e, 200)
	got := call{"GET", "/v1/resources/RAL/pricing", kAlice, "", nil}.must(t, e, 200)
	if !reflect.DeepEqual(jsonOf(t, rec.Body.Bytes()), jsonOf(t, got.Body.Bytes())) || !bytes.Contains(got.Body.Bytes(), []byte(`"shoulder"`)) {
		t.Fatalf("PUT answered %s, GET %s", rec.Body, got.Body)
	}
	// Booking control kept what still fits: peak's levels and the others.
	lim := jsonOf(t, call{"GET", "/v1/resources/RAL/limits-config", kProv, "", nil}.must(t, e, 200).Body.Bytes()).(map[string]any)
	if pl := lim["protection_levels"].(map[string]any); pl["peak"] == nil || pl["off_peak"] == nil {
		t.Errorf("protection levels after adding a period: %v", pl)
	}
	// What GET answers PUT takes back.
	call{"PUT", "/v1/resources/RAL/pricing", kProv, got.Body.String(), nil}.must(t, e, 200)

	call{"PUT", "/v1/resources/RAL/pricing", kProv, `{"fare_classes":` + string(both.FareClasses) + `}`, nil}.wantProblem(t, e, 422, "rate_periods")
	call{"PUT", "/v1/resources/RAL/pricing", kProv, `{"rate_periods":` + string(both.RatePeriods) + `}`, nil}.wantProblem(t, e, 422, "fare_classes")
	noShoulder := strings.Replace(shoulderPricing, `"shoulder":"3.00",`, ``, 1)
	call{"PUT", "/v1/resources/RAL/pricing", kProv, noShoulder, nil}.wantProblem(t, e, 422, "fare_classes[0].tau.shoulder")
	call{"PUT", "/v1/resources/RAL/pricing", kProv, `{"fare_classes":[],"rate_periods":[],"x":1}`, nil}.wantProblem(t, e, 400, "x")
	call{"PUT", "/v1/resources/NOPE/pricing", kProv, shoulderPricing, nil}.wantProblem(t, e, 404, "")
	call{"PUT", "/v1/resources/RAL/pricing", kAlice, shoulderPricing, nil}.wantProblem(t, e, 403, "")
}

// TestLimitsConfigRoute: booking control alone, read and written in the
// shape of the resource's "limits"; errors name the field in that body.
func TestLimitsConfigRoute(t *testing.T) {
	e, _ := newTestServer(t)
	before := call{"GET", "/v1/resources/RAL/limits-config", kProv, "", nil}.must(t, e, 200).Body.String()
	put := call{"PUT", "/v1/resources/RAL/limits-config", kProv, before, nil}.must(t, e, 200)
	if !reflect.DeepEqual(jsonOf(t, put.Body.Bytes()), jsonOf(t, []byte(before))) {
		t.Errorf("PUT of GET's body answered %s, GET gave %s", put.Body, before)
	}
	rec := call{"PUT", "/v1/resources/RAL/limits-config", kProv, `{"method":"emsr-a"}`, nil}.must(t, e, 200)
	if got := jsonOf(t, rec.Body.Bytes()); !reflect.DeepEqual(got, map[string]any{"method": "emsr-a", "min_history": 4.0}) {
		t.Errorf("PUT {method} answered %v: the other fields take their defaults", got)
	}
	call{"PUT", "/v1/resources/RAL/limits-config", kProv, `{"protection_levels":{"peak":[5,50]}}`, nil}.wantProblem(t, e, 422, "protection_levels.peak[1]", "41 nodes")
	call{"PUT", "/v1/resources/RAL/limits-config", kProv, `{"protection_levels":{"rush":[1,2]}}`, nil}.wantProblem(t, e, 422, "protection_levels.rush")
	call{"PUT", "/v1/resources/RAL/limits-config", kProv, `{"method":"emsr-c"}`, nil}.wantProblem(t, e, 422, "method")
	call{"PUT", "/v1/resources/RAL/limits-config", kProv, `{"show_rates":{"peak":"high"}}`, nil}.wantProblem(t, e, 400, "show_rates")
	call{"PUT", "/v1/resources/RAL/limits-config", kProv, `{"method":"emsr-b-mr","sell_up":{"premium":1.2}}`, nil}.wantProblem(t, e, 422, "sell_up.premium")
	call{"PUT", "/v1/resources/RAL/limits-config", kProv, `{"method":"emsr-b-mr","sell_up":{"gold":0.2}}`, nil}.wantProblem(t, e, 422, "sell_up.gold")
	call{"PUT", "/v1/resources/RAL/limits-config", kProv, `{"method":"bid-price"}`, nil}.must(t, e, 200)
	rec = call{"PUT", "/v1/resources/RAL/limits-config", kProv, `{"method":"emsr-b-mr","sell_up":{"premium":0.2}}`, nil}.must(t, e, 200)
	if got := jsonOf(t, rec.Body.Bytes()).(map[string]any)["sell_up"]; !reflect.DeepEqual(got, map[string]any{"premium": 0.2}) {
		t.Errorf("PUT with sell_up answered sell_up %v", got)
	}
	call{"GET", "/v1/resources/RAL/limits-config", kAlice, "", nil}.wantProblem(t, e, 403, "")
}

// TestShrinkingNamesTheLimits: lowering the nodes below what the stored
// protection levels protect is refused naming the level and both routes
// that can change it; giving new limits in the same PUT works. A change of
// the number of fare classes drops the levels sized for the old ones.
func TestShrinkingNamesTheLimits(t *testing.T) {
	e, _ := newTestServer(t)
	var ral map[string]any
	json.Unmarshal(call{"GET", "/v1/resources/RAL", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &ral)
	delete(ral, "limits")
	ral["nodes"] = 20
	body, _ := json.Marshal(ral)
	call{"PUT", "/v1/resources/RAL", kProv, string(body), nil}.wantProblem(t, e, 422, "limits.protection_levels.peak[1]",
		"/v1/resources/RAL/limits-config", "PUT /v1/resources/RAL", "20 nodes")
	ral["limits"] = map[string]any{"protection_levels": map[string]any{"peak": []int{5, 15}}}
	body, _ = json.Marshal(ral)
	call{"PUT", "/v1/resources/RAL", kProv, string(body), nil}.must(t, e, 200)

	call{"PUT", "/v1/resources/RAL/fare-classes", kProv, `[{"name":"premium","rank":1,"tau":{"peak":"3","off_peak":"2","super_saver":"1.5"},"penalty_rate":"0","denied_cost_factor":"5"},{"name":"budget","rank":2,"tau":{"peak":"2","off_peak":"1","super_saver":"1.2"},"penalty_rate":"0.25","denied_cost_factor":"3"}]`, nil}.must(t, e, 200)
	lim := jsonOf(t, call{"GET", "/v1/resources/RAL/limits-config", kProv, "", nil}.must(t, e, 200).Body.Bytes()).(map[string]any)
	if lim["protection_levels"] != nil {
		t.Errorf("levels for three classes kept after a PUT of two: %v", lim)
	}
}

// TestDeleteResource: a resource with live bookings is not deleted (409
// naming how many, by status); without, DELETE retires it: it leaves the
// listing, answers 404 saying when, takes no offers or holds, and its
// bookings and invoices stay readable. A PUT puts a new one in service
// under the id.
func TestDeleteResource(t *testing.T) {
	e, _ := newTestServer(t)
	start := time.Now().UTC().Truncate(time.Hour).Add(72 * time.Hour)
	holdReq := `{"resource_id":"RAL","start":"` + start.Format(time.RFC3339) + `","end":"` + start.Add(2*time.Hour).Format(time.RFC3339) + `","nodes":2,"fare_class":"business"}`
	rec := call{"POST", "/v1/bookings", kAlice, holdReq, []string{"Idempotency-Key", "del-1"}}.must(t, e, 201)
	var b struct {
		ID string `json:"booking_id"`
	}
	json.Unmarshal(rec.Body.Bytes(), &b)
	call{"DELETE", "/v1/resources/RAL", kProv, "", nil}.wantProblem(t, e, 409, "", "1 live bookings (1 held, 0 committed, 0 active)")
	call{"POST", "/v1/bookings/" + b.ID + "/commit", kAlice, "", nil}.must(t, e, 200)
	call{"DELETE", "/v1/resources/RAL", kProv, "", nil}.wantProblem(t, e, 409, "", "(0 held, 1 committed, 0 active)")
	call{"DELETE", "/v1/resources/RAL", kAlice, "", nil}.wantProblem(t, e, 403, "")
	call{"POST", "/v1/bookings/" + b.ID + "/cancel", kAlice, "", nil}.must(t, e, 200)

	call{"DELETE", "/v1/resources/RAL", kProv, "", nil}.must(t, e, 204)
	call{"DELETE", "/v1/resources/RAL", kProv, "", nil}.wantProblem(t, e, 404, "", "retired at")
	call{"GET", "/v1/resources/RAL", kAlice, "", nil}.wantProblem(t, e, 404, "", "was retired at")
	call{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"none"}`, nil}.wantProblem(t, e, 404, "")
	if list := (call{"GET", "/v1/resources", kAlice, "", nil}).must(t, e, 200).Body.String(); strings.Contains(list, `"id":"RAL"`) {
		t.Errorf("the listing still has RAL: %s", list)
	}
	call{"POST", "/v1/offers", kAlice, `{"resource_id":"RAL","earliest_start":"` + start.Format(time.RFC3339) + `","latest_end":"` + start.Add(5*time.Hour).Format(time.RFC3339) + `"}`, nil}.wantProblem(t, e, 422, "resource_id", "retired")
	call{"POST", "/v1/bookings", kAlice, holdReq, []string{"Idempotency-Key", "del-2"}}.wantProblem(t, e, 422, "resource_id", "retired")
	// Offers over every resource skip it.
	all := call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + start.Format(time.RFC3339) + `","latest_end":"` + start.Add(5*time.Hour).Format(time.RFC3339) + `"}`, nil}.must(t, e, 200)
	if strings.Contains(all.Body.String(), `"resource_id":"RAL"`) {
		t.Errorf("an offer on the retired RAL: %s", all.Body)
	}
	// History stays readable.
	call{"GET", "/v1/bookings/" + b.ID, kAlice, "", nil}.must(t, e, 200)
	inv := call{"GET", "/v1/invoices?account_id=alice", kBill, "", nil}.must(t, e, 200)
	if !strings.Contains(inv.Body.String(), b.ID) {
		t.Errorf("the invoice no longer shows the booking's penalty: %s", inv.Body)
	}
	// A PUT puts a new resource in service under the id.
	obj := demoResource(t, 0)
	body, _ := json.Marshal(obj)
	call{"PUT", "/v1/resources/RAL", kProv, string(body), nil}.must(t, e, 201)
	call{"GET", "/v1/resources/RAL", kAlice, "", nil}.must(t, e, 200)
}
