package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestProviderOverHTTPAlone is issue 10's "done when": against the real
// binary, a provider creates, prices, re-prices (a rate period added),
// restricts to a VO, retires and deletes a resource and manages API keys
// over HTTP alone; a restart keeps it all; and the configuration file with
// the resource's GET body gives the same resource.
func TestProviderOverHTTPAlone(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir+"/data")
	prov := func(method, path string, body any, status int) reply {
		t.Helper()
		return do(t, s.base, method, path, keyProvider, body, "Idempotency-Key", "p-"+path).want(t, status)
	}

	// Create: a resource selling in EUR in a service whose default is GRD.
	prov("PUT", "/v1/resources/LAB", `{"nodes":8,"base_cost":"0.002","currency":"EUR","time_zone":"UTC","tags":["gpu"]}`, 201)
	// Price: two classes over two periods.
	prov("PUT", "/v1/resources/LAB/pricing", `{"rate_periods":[
	  {"name":"day","days":"all","from":"06:00","to":"20:00"},{"name":"night","days":"all","from":"20:00","to":"06:00"}],
	 "fare_classes":[
	  {"name":"gold","rank":1,"tau":{"day":"3","night":"2"},"penalty_rate":"0","denied_cost_factor":"5"},
	  {"name":"basic","rank":2,"tau":{"day":"2","night":"1.5"},"penalty_rate":"0.2","denied_cost_factor":"3"}]}`, 200)
	// Re-price: a shoulder period and its taus in one request.
	prov("PUT", "/v1/resources/LAB/pricing", `{"rate_periods":[
	  {"name":"shoulder","days":"all","from":"06:00","to":"08:00"},{"name":"day","days":"all","from":"08:00","to":"20:00"},
	  {"name":"night","days":"all","from":"20:00","to":"06:00"}],
	 "fare_classes":[
	  {"name":"gold","rank":1,"tau":{"day":"3","shoulder":"2.5","night":"2"},"penalty_rate":"0","denied_cost_factor":"5"},
	  {"name":"basic","rank":2,"tau":{"day":"2","shoulder":"1.8","night":"1.5"},"penalty_rate":"0.2","denied_cost_factor":"3","vo":"1"}]}`, 200)
	prov("PUT", "/v1/resources/LAB/limits-config", `{"method":"emsr-a","protection_levels":{"day":[2]}}`, 200)

	// Keys: one for a new user of VO 1, one for a new user of VO 2.
	var carol, dave struct {
		Key string `json:"key"`
	}
	prov("POST", "/v1/keys", `{"name":"carol","role":"user","account_id":"carol","vo":"1"}`, 201).json(t, &carol)
	prov("POST", "/v1/keys", `{"name":"dave","role":"user","account_id":"dave","vo":"2"}`, 201).json(t, &dave)

	// Restrict: basic is VO 1's; carol may buy it, dave may not.
	start := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
	win := `"earliest_start":"` + start.Format(time.RFC3339) + `","latest_end":"` + start.Add(6*time.Hour).Format(time.RFC3339) + `"`
	var offers struct {
		Offers []struct {
			OfferID string    `json:"offer_id"`
			Price   priceJSON `json:"price"`
		} `json:"offers"`
	}
	do(t, s.base, "POST", "/v1/offers", carol.Key, `{"resource_id":"LAB",`+win+`,"duration_seconds":3600,"nodes":2,"fare_class":"basic"}`).want(t, 200).json(t, &offers)
	if len(offers.Offers) == 0 || offers.Offers[0].Price.Currency != "EUR" {
		t.Fatalf("carol's offers: %+v", offers)
	}
	do(t, s.base, "POST", "/v1/offers", dave.Key, `{"resource_id":"LAB",`+win+`,"fare_class":"basic"}`).want(t, 403)

	// The resource as GET shows it now: the file will be given this body.
	labBody := prov("GET", "/v1/resources/LAB", nil, 200).body

	// Retire: refused while carol holds, done once she cancels.
	var b bookingJSON
	do(t, s.base, "POST", "/v1/bookings", carol.Key, `{"offer_id":"`+offers.Offers[0].OfferID+`"}`, "Idempotency-Key", "carol-1").want(t, 201).json(t, &b)
	p := prov("DELETE", "/v1/resources/LAB", nil, 409).problem(t)
	if !strings.Contains(p.Detail, "1 live bookings (1 held") {
		t.Errorf("409 detail %q does not count the live bookings", p.Detail)
	}
	do(t, s.base, "POST", "/v1/bookings/"+b.ID+"/cancel", carol.Key, nil).want(t, 200)
	prov("DELETE", "/v1/resources/LAB", nil, 204)
	prov("GET", "/v1/resources/LAB", nil, 404)
	do(t, s.base, "POST", "/v1/offers", carol.Key, `{"resource_id":"LAB",`+win+`}`).want(t, 422)
	// Revoke dave at once.
	prov("DELETE", "/v1/keys/dave", nil, 204)
	do(t, s.base, "GET", "/v1/bookings", dave.Key, nil).want(t, 401)

	// A restart keeps the retirement, carol's key and dave's revocation;
	// carol's cancelled booking stays readable.
	s.stop()
	s = startServer(t, dir+"/data")
	prov("GET", "/v1/resources/LAB", nil, 404)
	do(t, s.base, "GET", "/v1/bookings/"+b.ID, carol.Key, nil).want(t, 200)
	do(t, s.base, "GET", "/v1/bookings", dave.Key, nil).want(t, 401)
	var keys struct {
		Data []struct {
			Name string `json:"name"`
		} `json:"data"`
	}
	prov("GET", "/v1/keys", nil, 200).json(t, &keys)
	var names []string
	for _, k := range keys.Data {
		names = append(names, k.Name)
	}
	if got := strings.Join(names, " "); got != "carol demo-alice demo-billing demo-bob demo-provider" {
		t.Errorf("keys after a restart: %s", got)
	}
	s.stop()

	// The configuration-file path: the GET body as a resource of the file
	// makes the same resource (has_queue is GET's own and left out).
	var obj map[string]any
	if err := json.Unmarshal(labBody, &obj); err != nil {
		t.Fatal(err)
	}
	delete(obj, "has_queue")
	cfgPath := configWith(t, dir, func(cfg map[string]any) {
		cfg["resources"] = append(cfg["resources"].([]any), obj)
	})
	f := startServer(t, dir+"/file-data", "--config", cfgPath)
	fromFile := do(t, f.base, "GET", "/v1/resources/LAB", keyProvider, nil).want(t, 200).body
	var a, c any
	json.Unmarshal(labBody, &a)
	json.Unmarshal(fromFile, &c)
	if !reflect.DeepEqual(a, c) {
		t.Errorf("the file's LAB differs from the API's:\nfile: %s\napi:  %s", fromFile, labBody)
	}
}
