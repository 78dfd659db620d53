package api

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestContentType: a body is read only when it says it is JSON (issue 9,
// defect 10): anything else is 415 problem+json naming Content-Type.
func TestContentType(t *testing.T) {
	e, _ := newTestServer(t)
	future := time.Now().UTC().Truncate(time.Hour).Add(72 * time.Hour)
	offers := `{"resource_id":"RAL","earliest_start":"` + future.Format(time.RFC3339) + `","latest_end":"` + future.Add(2*time.Hour).Format(time.RFC3339) + `","duration_seconds":3600,"nodes":1,"fare_class":"premium"}`
	send := func(method, path, key, ctype, body string, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/xml",
		"application/json; charset=latin1", "application/json; foo=bar", "application/jsonx", "application/merge-patch+json",
		"application/problem+json", "json", "application/json;;"} {
		rec := send("POST", "/v1/offers", kAlice, ct, offers)
		p := checkProblem(t, call{"POST", "/v1/offers", kAlice, offers, nil}, rec)
		if rec.Code != 415 || len(p.Errors) != 1 || p.Errors[0].Field != "Content-Type" || !strings.HasSuffix(p.Type, "/unsupported-media-type") {
			t.Errorf("Content-Type %q: %d %s, want 415 naming Content-Type", ct, rec.Code, rec.Body)
		}
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON; Charset=UTF-8", `application/json;charset="utf-8"`} {
		if rec := send("POST", "/v1/offers", kAlice, ct, offers); rec.Code != 200 {
			t.Errorf("Content-Type %q: %d %s, want 200", ct, rec.Code, rec.Body)
		}
	}
	// Every route that reads a body checks it, the provider's raw bodies too.
	for _, c := range []struct{ method, path, key, body string }{
		{"PUT", "/v1/resources/CT", kProv, `{"nodes":3,"base_cost":"0.49","currency":"GRD","time_zone":"UTC"}`},
		{"PUT", "/v1/resources/RAL/fare-classes", kProv, `[]`},
		{"PUT", "/v1/resources/RAL/rate-periods", kProv, `[]`},
		{"PUT", "/v1/resources/RAL/queue", kProv, `{}`},
		{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"none"}`},
		{"POST", "/v1/bookings", kAlice, `{"offer_id":"x"}`},
		{"PATCH", "/v1/bookings/x", kAlice, `{"nodes":2}`},
		{"POST", "/v1/bookings/x/commit", kAlice, `{}`},
	} {
		rec := send(c.method, c.path, c.key, "text/plain", c.body, "Idempotency-Key", "ct")
		if rec.Code != 415 {
			t.Errorf("%s %s as text/plain: %d %s, want 415", c.method, c.path, rec.Code, rec.Body)
		}
	}
	// PATCH is a merge patch: its own media type is accepted there (the
	// booking does not exist: 404 means the body was read).
	for _, ct := range []string{"application/merge-patch+json", "application/json"} {
		if rec := send("PATCH", "/v1/bookings/nope", kAlice, ct, `{"nodes":2}`); rec.Code != 404 {
			t.Errorf("PATCH as %s: %d %s, want 404", ct, rec.Code, rec.Body)
		}
	}
	// No body needs no type: commit with an empty body is not a 415.
	if rec := send("POST", "/v1/bookings/nope/commit", kAlice, "", ""); rec.Code != 404 {
		t.Errorf("empty commit without Content-Type: %d %s, want 404", rec.Code, rec.Body)
	}
}

// TestDuplicateAndCaseFoldedKeys: a key twice in one object, at any depth,
// is 400 naming it; a key that is a field's name only up to case is refused
// naming the key as sent (issue 9, defect 10).
func TestDuplicateAndCaseFoldedKeys(t *testing.T) {
	e, _ := newTestServer(t)
	future := time.Now().UTC().Truncate(time.Hour).Add(72 * time.Hour)
	ts := future.Format(time.RFC3339)
	te := future.Add(time.Hour).Format(time.RFC3339)
	idem := []string{"Idempotency-Key", "dup"}
	const class = `"name":"premium","rank":1,"tau":{"peak":"3.38","off_peak":"2.63","super_saver":"1.88"},"penalty_rate":"0","denied_cost_factor":"5","vo":null`
	cases := []struct {
		c      call
		status int
		field  string
	}{
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts + `","latest_end":"` + te + `","nodes":1,"nodes":40}`, nil}, 400, "nodes"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts + `","latest_end":"` + te + `","Nodes":1}`, nil}, 400, "Nodes"},
		{call{"POST", "/v1/offers", kAlice, `{"EARLIEST_START":"` + ts + `","latest_end":"` + te + `"}`, nil}, 400, "EARLIEST_START"},
		{call{"POST", "/v1/bookings", kAlice, `{"resource_id":"RAL","start":"` + ts + `","end":"` + te + `","nodes":1,"fare_class":"premium","fare_class":"budget"}`, idem}, 400, "fare_class"},
		{call{"POST", "/v1/bookings", kAlice, `{"Offer_ID":"abc"}`, idem}, 400, "Offer_ID"},
		{call{"PATCH", "/v1/bookings/x", kAlice, `{"nodes":1,"\u006eodes":2}`, nil}, 400, "nodes"},
		{call{"PUT", "/v1/resources/DUP", kProv, `{"nodes":3,"base_cost":"0.49","base_cost":"0.01","currency":"GRD","time_zone":"UTC"}`, nil}, 400, "base_cost"},
		{call{"PUT", "/v1/resources/DUP", kProv, `{"Nodes":3,"base_cost":"0.49","currency":"GRD","time_zone":"UTC"}`, nil}, 400, "Nodes"},
		{call{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"none","Denial":"dcf"}`, nil}, 400, "Denial"},
		// The provider's raw bodies: duplicates at any depth are 400 at the
		// edge; the service's own decoders refuse case-folded names (422).
		{call{"PUT", "/v1/resources/RAL/fare-classes", kProv, `[{` + class + `,"rank":2}]`, nil}, 400, "[0].rank"},
		{call{"PUT", "/v1/resources/RAL/fare-classes", kProv, `[{"name":"premium","rank":1,"tau":{"peak":"3.38","peak":"0.01","off_peak":"2.63","super_saver":"1.88"},"penalty_rate":"0","denied_cost_factor":"5","vo":null}]`, nil}, 400, "[0].tau.peak"},
		{call{"PUT", "/v1/resources/RAL/fare-classes", kProv, `[{` + class + `,"Rank":1}]`, nil}, 422, "[0].Rank"},
		{call{"PUT", "/v1/resources/RAL/rate-periods", kProv, `[{"name":"peak","days":"weekdays","from":"06:00","to":"18:00","to":"12:00"}]`, nil}, 400, "[0].to"},
		{call{"PUT", "/v1/resources/RAL/queue", kProv, `{"nodes":41,"now":0,"policy":"easy","running":[{"id":"A","nodes":10,"end":100,"nodes":1}],"queued":[]}`, nil}, 400, "running[0].nodes"},
		{call{"PUT", "/v1/resources/RAL/queue", kProv, `{"NODES":41,"now":0,"policy":"easy","running":[],"queued":[]}`, nil}, 422, "NODES"},
	}
	for _, tc := range cases {
		rec := tc.c.run(e)
		p := checkProblem(t, tc.c, rec)
		if rec.Code != tc.status || len(p.Errors) == 0 || p.Errors[0].Field != tc.field {
			t.Errorf("%s %s %s: %d %s, want %d naming %q", tc.c.method, tc.c.path, trunc(tc.c.body), rec.Code, rec.Body, tc.status, tc.field)
		}
	}
}

// TestMalformedQuery: a query string that does not parse is 400 naming the
// parameter on every route that reads one, never a silently unfiltered
// answer (issue 9, defect 10: ?status=%zz listed everything).
func TestMalformedQuery(t *testing.T) {
	e, _ := newTestServer(t)
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 2).Format(time.RFC3339)
	cases := []struct {
		c     call
		field string
	}{
		{call{"GET", "/v1/bookings?status=%zz", kAlice, "", nil}, "status"},
		{call{"GET", "/v1/bookings?status=held&status=committed", kAlice, "", nil}, "status"},
		{call{"GET", "/v1/bookings?limit=%", kAlice, "", nil}, "limit"},
		{call{"GET", "/v1/bookings?cursor=a%2", kAlice, "", nil}, "cursor"},
		{call{"GET", "/v1/bookings?status=held;limit=2", kAlice, "", nil}, "status"},
		{call{"GET", "/v1/bookings?%zz=1", kAlice, "", nil}, "query"},
		{call{"GET", "/v1/bookings?=held", kAlice, "", nil}, "query"},
		{call{"GET", "/v1/bookings/x?%zz", kAlice, "", nil}, "query"},
		{call{"GET", "/v1/resources?x=%zz", kAlice, "", nil}, "x"},
		{call{"GET", "/v1/resources/RAL?a=%", kAlice, "", nil}, "a"},
		{call{"GET", "/v1/resources/RAL/limits?from=" + day + "&to=%zz", kProv, "", nil}, "to"},
		{call{"GET", "/v1/resources/RAL/limits?from=" + day + "&from=" + day, kProv, "", nil}, "from"},
		{call{"GET", "/v1/invoices?account_id=alice&period=%zz", kBill, "", nil}, "period"},
		{call{"GET", "/v1/invoices?account_id=al%zzice", kBill, "", nil}, "account_id"},
		{call{"GET", "/v1/invoices?account_id=alice&account_id=bob", kBill, "", nil}, "account_id"},
		{call{"GET", "/v1/ledger/entries?account_id=alice&cursor=%zz", kBill, "", nil}, "cursor"},
		{call{"GET", "/v1/ledger/balance?account_id=%zz", kBill, "", nil}, "account_id"},
		{call{"POST", "/v1/offers?%zz", kAlice, `{}`, nil}, "query"},
		{call{"POST", "/v1/bookings/x/commit?force=%zz", kAlice, "", nil}, "force"},
	}
	for _, tc := range cases {
		rec := tc.c.run(e)
		p := checkProblem(t, tc.c, rec)
		if rec.Code != 400 || len(p.Errors) == 0 || p.Errors[0].Field != tc.field {
			t.Errorf("%s %s: %d %s, want 400 naming %q", tc.c.method, tc.c.path, rec.Code, rec.Body, tc.field)
		}
	}
}
