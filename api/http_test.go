package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/boltstore/coreservebolt"
	"slotfare/booking/boltstore/runsbolt"
	"slotfare/booking/config"
	"slotfare/booking/coreserve"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/runs"
	"slotfare/booking/service"
)

// newTestServer opens the real booking service on the demo configuration
// with a real bbolt store in a temporary directory, behind New, with the
// co-reservation broker's records and the recorded runs in Bolt files
// beside it.
func newTestServer(t testing.TB) (*echo.Echo, *service.Service) {
	t.Helper()
	dir := t.TempDir()
	store, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return newServerOn(t, dir, store)
}

// newServerOn is newTestServer on store, with its Bolt files in dir.
func newServerOn(t testing.TB, dir string, store booking.Store) (*echo.Echo, *service.Service) {
	t.Helper()
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(cfg, deploytest.Embedded(t, store), service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	cos, err := coreservebolt.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cos.Close() })
	rst, err := runsbolt.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rst.Close() })
	rs := runs.NewService(rst, svc, runs.Options{})
	m := NewMetrics()
	e := New(svc, Options{Ready: readyOf(svc), Metrics: m, Runs: rs,
		CoReservations: coreserve.New(svc, cos, coreserve.Options{OnOutcome: m.CoReservation, Durations: rs.Predictor()})})
	validating.Store(e, t)
	t.Cleanup(func() { validating.Delete(e) })
	return e, svc
}

type call struct {
	method, path, key string
	body              string
	hdr               []string
}

// readyOf is the service's readiness as Options.Ready takes it.
func readyOf(svc *service.Service) func(context.Context) error {
	return func(context.Context) error { return svc.Ready() }
}

func (c call) run(e *echo.Echo) *httptest.ResponseRecorder {
	req := c.request()
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	checkAnswer(e, req, rec)
	return rec
}

// request is the call's request: its key as a bearer token, a JSON body's
// type, and its headers.
func (c call) request() *http.Request {
	var rd io.Reader
	if c.body != "" {
		rd = strings.NewReader(c.body)
	}
	req := httptest.NewRequest(c.method, c.path, rd)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(c.hdr); i += 2 {
		req.Header.Set(c.hdr[i], c.hdr[i+1])
	}
	return req
}

// checkProblem asserts a 4xx problem+json answer that is well formed.
func checkProblem(t *testing.T, c call, rec *httptest.ResponseRecorder) Problem {
	t.Helper()
	if rec.Code < 400 || rec.Code >= 500 {
		t.Fatalf("%s %s %q: status %d, want 4xx: %s", c.method, c.path, trunc(c.body), rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("%s %s: Content-Type %q", c.method, c.path, ct)
	}
	var p Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("%s %s: problem is not JSON: %s", c.method, c.path, rec.Body)
	}
	if p.Status != rec.Code || p.Type == "" || p.Title == "" || p.Errors == nil {
		t.Fatalf("%s %s: incomplete problem %s", c.method, c.path, rec.Body)
	}
	return p
}

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

const (
	kProv  = "demo-provider"
	kBill  = "demo-billing"
	kAlice = "demo-alice"
	kBob   = "demo-bob"
)

// TestMalformedRequests throws bad requests at every route and checks each
// gets the expected 4xx problem+json naming the field, never a 5xx.
func TestMalformedRequests(t *testing.T) {
	e, _ := newTestServer(t)
	future := time.Now().UTC().Truncate(time.Hour).Add(72 * time.Hour)
	ts := func(d time.Duration) string { return future.Add(d).Format(time.RFC3339) }
	huge := `{"resource_id":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	idem := []string{"Idempotency-Key", "k1"}

	cases := []struct {
		c      call
		status int
		field  string
	}{
		// Authentication and roles.
		{call{"GET", "/v1/resources", "", "", nil}, 401, "Authorization"},
		{call{"GET", "/v1/resources", "not-a-key", "", nil}, 401, "Authorization"},
		{call{"GET", "/v1/resources", "", "", []string{"Authorization", "Basic ZGVtbzpkZW1v"}}, 401, "Authorization"},
		{call{"GET", "/v1/resources", "", "", []string{"Authorization", "Bearer"}}, 401, "Authorization"},
		{call{"PUT", "/v1/resources/RAL", kAlice, `{"nodes":3,"base_cost":"0.49","currency":"GRD","time_zone":"UTC"}`, nil}, 403, ""},
		{call{"PUT", "/v1/resources/RAL/overbooking", kBill, `{"policy":"none"}`, nil}, 403, ""},
		{call{"GET", "/v1/resources/RAL/limits?from=" + ts(0) + "&to=" + ts(time.Hour), kAlice, "", nil}, 403, ""},
		{call{"POST", "/v1/offers", kProv, `{}`, nil}, 403, ""},
		{call{"POST", "/v1/bookings", kBill, `{"offer_id":"x"}`, idem}, 403, ""},
		{call{"GET", "/v1/bookings", kBill, "", nil}, 403, ""},
		{call{"GET", "/v1/invoices?account_id=alice", kAlice, "", nil}, 403, ""},
		{call{"GET", "/v1/ledger/entries?account_id=alice", kBob, "", nil}, 403, ""},
		{call{"POST", "/v1/co-reservations", "", `{}`, nil}, 401, "Authorization"},

		// Routing.
		{call{"GET", "/v1/nothing", kAlice, "", nil}, 404, ""},
		{call{"GET", "/nothing", "", "", nil}, 404, ""},
		{call{"DELETE", "/v1/bookings/x", kAlice, "", nil}, 405, ""},
		{call{"GET", "/v1/bookings/no-such-booking", kAlice, "", nil}, 404, ""},
		{call{"POST", "/v1/bookings/no-such-booking/commit", kAlice, "", nil}, 404, ""},
		{call{"GET", "/v1/resources/NOPE", kAlice, "", nil}, 404, ""},

		// Provider PUTs.
		{call{"PUT", "/v1/resources/NEW1", kProv, `{"nodes":3,"base_cost":"0.49","currency":"GRD","time_zone":"UTC"`, nil}, 400, "body"},
		{call{"PUT", "/v1/resources/NEW1", kProv, `{"nodes":"3","base_cost":"0.49","currency":"GRD","time_zone":"UTC"}`, nil}, 400, "nodes"},
		{call{"PUT", "/v1/resources/NEW1", kProv, `{"nodes":3,"base_cost":0.49,"currency":"GRD","time_zone":"UTC"}`, nil}, 400, "base_cost"},
		{call{"PUT", "/v1/resources/NEW1", kProv, `{"nodes":3,"base_cost":"0.49","currency":"GRD","time_zone":"UTC","colour":1}`, nil}, 400, "colour"},
		{call{"PUT", "/v1/resources/NEW1", kProv, `{"nodes":3,"base_cost":"abc","currency":"GRD","time_zone":"UTC"}`, nil}, 422, "base_cost"},
		{call{"PUT", "/v1/resources/NEW1", kProv, `{"nodes":-1,"base_cost":"0.49","currency":"GRD","time_zone":"UTC"}`, nil}, 422, "nodes"},
		{call{"PUT", "/v1/resources/NEW1", kProv, `{"nodes":3,"base_cost":"0.49","currency":"GRD","time_zone":"Mars/Olympus"}`, nil}, 422, "time_zone"},
		{call{"PUT", "/v1/resources/NEW1", kProv, `{"base_cost":"0.49","currency":"GRD","time_zone":"UTC"}`, nil}, 422, "nodes"},
		{call{"PUT", "/v1/resources/NEW1", kProv, huge, nil}, 413, "body"},
		{call{"PUT", "/v1/resources/RAL/fare-classes", kProv, `{"name":"x"}`, nil}, 422, ""},
		{call{"PUT", "/v1/resources/RAL/fare-classes", kProv, `[{"name":"premium","rank":"one"}]`, nil}, 422, ""},
		{call{"PUT", "/v1/resources/RAL/fare-classes", kProv, `[`, nil}, 400, "body"},
		{call{"PUT", "/v1/resources/RAL/rate-periods", kProv, `[{"name":"peak","days":"someday","from":"25:00","to":"x"}]`, nil}, 422, ""},
		{call{"PUT", "/v1/resources/RAL/rate-periods", kProv, `[] []`, nil}, 400, "body"},
		{call{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"maybe"}`, nil}, 422, "policy"},
		{call{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"risk","denial":"coin"}`, nil}, 422, "denial"},
		{call{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"risk","service_level":2}`, nil}, 422, "service_level"},
		{call{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"risk","service_level":"low"}`, nil}, 400, "service_level"},
		{call{"PUT", "/v1/resources/RAL/queue", kProv, `{"bogus":1}`, nil}, 422, ""},
		{call{"PUT", "/v1/resources/RAL/queue", kProv, ``, nil}, 400, "body"},
		{call{"PUT", "/v1/resources/NOPE/overbooking", kProv, `{"policy":"none"}`, nil}, 404, ""},
		{call{"GET", "/v1/resources/RAL/limits", kProv, "", nil}, 422, "from"},
		{call{"GET", "/v1/resources/RAL/limits?from=" + ts(0) + "&to=yesterday", kProv, "", nil}, 422, "to"},
		{call{"GET", "/v1/resources/RAL/limits?from=" + ts(time.Hour) + "&to=" + ts(0), kProv, "", nil}, 422, "to"},

		// Offers.
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts(0) + `","latest_end":"` + ts(time.Hour) + `","nodes":2,"extra":true}`, nil}, 400, "extra"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts(0) + `","latest_end":"` + ts(time.Hour) + `","nodes":"two"}`, nil}, 400, "nodes"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"tomorrow","latest_end":"` + ts(time.Hour) + `"}`, nil}, 422, "earliest_start"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts(0) + `"}`, nil}, 422, "latest_end"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts(time.Hour) + `","latest_end":"` + ts(0) + `"}`, nil}, 422, "latest_end"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts(0) + `","latest_end":"` + ts(time.Hour) + `","nodes":0}`, nil}, 422, "nodes"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts(0) + `","latest_end":"` + ts(time.Hour) + `","duration_seconds":-5}`, nil}, 422, "duration_seconds"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts(0) + `","latest_end":"` + ts(time.Hour) + `","duration_seconds":7200}`, nil}, 422, "duration_seconds"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"` + ts(0) + `","latest_end":"` + ts(time.Hour) + `","strategy":"random"}`, nil}, 422, "strategy"},
		{call{"POST", "/v1/offers", kAlice, `{"resource_id":"RAL","earliest_start":"` + ts(0) + `","latest_end":"` + ts(time.Hour) + `","fare_class":"first"}`, nil}, 422, "fare_class"},
		{call{"POST", "/v1/offers", kAlice, `{"resource_id":"NOPE","earliest_start":"` + ts(0) + `","latest_end":"` + ts(time.Hour) + `"}`, nil}, 422, "resource_id"},
		{call{"POST", "/v1/offers", kAlice, `{"earliest_start":"2020-01-01T00:00:00Z","latest_end":"2020-01-01T01:00:00Z"}`, nil}, 422, "latest_end"},
		{call{"POST", "/v1/offers", kAlice, huge, nil}, 413, "body"},
		{call{"POST", "/v1/offers?debug=1", kAlice, `{}`, nil}, 400, "debug"},

		// Holds.
		{call{"POST", "/v1/bookings", kAlice, `{"offer_id":"abc"}`, nil}, 400, "Idempotency-Key"},
		{call{"POST", "/v1/bookings", kAlice, `{"offer_id":"abc"}`, []string{"Idempotency-Key", strings.Repeat("k", 300)}}, 400, "Idempotency-Key"},
		{call{"POST", "/v1/bookings", kAlice, `{"offer_id":"abc"}`, idem}, 422, "offer_id"},
		{call{"POST", "/v1/bookings", kAlice, `{"offer_id":""}`, idem}, 422, "offer_id"},
		{call{"POST", "/v1/bookings", kAlice, `{"offer_id":"abc","nodes":2}`, idem}, 422, "offer_id"},
		{call{"POST", "/v1/bookings", kAlice, `{"offer_id":7}`, idem}, 400, "offer_id"},
		{call{"POST", "/v1/bookings", kAlice, `{}`, idem}, 422, "resource_id"},
		{call{"POST", "/v1/bookings", kAlice, `{"resource_id":"RAL","start":"` + ts(0) + `","end":"` + ts(time.Hour) + `","nodes":0,"fare_class":"premium"}`, idem}, 422, "nodes"},
		{call{"POST", "/v1/bookings", kAlice, `{"resource_id":"RAL","start":"` + ts(0) + `","end":"` + ts(-time.Hour) + `","nodes":1,"fare_class":"premium"}`, idem}, 422, "end"},
		{call{"POST", "/v1/bookings", kAlice, `{"resource_id":"RAL","start":"2001-01-01T00:00:00Z","end":"2001-01-01T01:00:00Z","nodes":1,"fare_class":"premium"}`, idem}, 422, "start"},
		{call{"POST", "/v1/bookings", kAlice, `{"resource_id":"RAL","start":"` + ts(0) + `","end":"` + ts(time.Hour) + `","nodes":1}`, idem}, 422, "fare_class"},
		{call{"POST", "/v1/bookings", kAlice, `{"resource_id":"RAL","start":"` + ts(0) + `","end":"` + ts(time.Hour) + `","nodes":1,"fare_class":"premium"}{}`, idem}, 400, "body"},

		// Booking actions and listing.
		{call{"POST", "/v1/bookings/x/commit", kAlice, `{"force":true}`, nil}, 400, "body"},
		{call{"PATCH", "/v1/bookings/x", kAlice, `{}`, nil}, 422, "body"},
		{call{"PATCH", "/v1/bookings/x", kAlice, `{"nodes":0}`, nil}, 422, "nodes"},
		{call{"PATCH", "/v1/bookings/x", kAlice, `{"start":"noon"}`, nil}, 422, "start"},
		{call{"PATCH", "/v1/bookings/x", kAlice, `{"status":"committed"}`, nil}, 400, "status"},
		{call{"GET", "/v1/bookings?status=booked", kAlice, "", nil}, 422, "status"},
		{call{"GET", "/v1/bookings?limit=0", kAlice, "", nil}, 422, "limit"},
		{call{"GET", "/v1/bookings?limit=ten", kAlice, "", nil}, 422, "limit"},
		{call{"GET", "/v1/bookings?cursor=%00%01garbage", kAlice, "", nil}, 400, "cursor"},
		{call{"GET", "/v1/bookings?stauts=held", kAlice, "", nil}, 400, "stauts"},

		// Billing.
		{call{"GET", "/v1/invoices?period=2026-13", kBill, "", nil}, 422, "period"},
		{call{"GET", "/v1/invoices?account_id=alice&period=2026-13", kBill, "", nil}, 422, "period"},
		{call{"GET", "/v1/invoices?account_id=alice&limit=-1", kBill, "", nil}, 422, "limit"},
		{call{"GET", "/v1/invoices?account_id=alice&cursor=zzz", kBill, "", nil}, 400, "cursor"},
		{call{"GET", "/v1/ledger/entries", kBill, "", nil}, 422, "account_id"},
		{call{"GET", "/v1/ledger/entries?account_id=alice&cursor=zzz", kBill, "", nil}, 400, "cursor"},
		{call{"GET", "/v1/ledger/balance", kBill, "", nil}, 422, "account_id"},
		{call{"GET", "/v1/ledger/balance?account_id=alice&x=1", kBill, "", nil}, 400, "x"},
		{call{"GET", "/v1/ledger/balance?account_id=alice", kAlice, "", nil}, 403, ""},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %s", tc.c.method, trunc(tc.c.path)), func(t *testing.T) {
			rec := tc.c.run(e)
			p := checkProblem(t, tc.c, rec)
			if rec.Code != tc.status {
				t.Fatalf("%s %s %q: status %d, want %d: %s", tc.c.method, tc.c.path, trunc(tc.c.body), rec.Code, tc.status, rec.Body)
			}
			if tc.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tc.field) {
				t.Fatalf("%s %s %q: errors %+v, want field %q", tc.c.method, tc.c.path, trunc(tc.c.body), p.Errors, tc.field)
			}
			if rec.Code == 401 && rec.Header().Get("WWW-Authenticate") == "" {
				t.Fatalf("401 without WWW-Authenticate")
			}
		})
	}
	// Co-reservations are served: an empty request is a 422 naming parts.
	c := call{"POST", "/v1/co-reservations", kAlice, `{}`, nil}
	rec := c.run(e)
	if p := checkProblem(t, c, rec); rec.Code != http.StatusUnprocessableEntity || len(p.Errors) == 0 || p.Errors[0].Field != "parts" {
		t.Fatalf("co-reservations: %d %s", rec.Code, rec.Body)
	}
}

// TestMutatedBodiesNeverServerError mutates valid bodies of every body route
// at random (bytes flipped, cut, duplicated, fields retyped) and checks that
// nothing answers 5xx.
func TestMutatedBodiesNeverServerError(t *testing.T) {
	e, _ := newTestServer(t)
	future := time.Now().UTC().Truncate(time.Hour).Add(72 * time.Hour)
	ts := func(d time.Duration) string { return future.Add(d).Format(time.RFC3339) }
	valid := []call{
		{"POST", "/v1/offers", kAlice, `{"resource_id":"RAL","earliest_start":"` + ts(0) + `","latest_end":"` + ts(3*time.Hour) + `","duration_seconds":3600,"nodes":2,"fare_class":"premium"}`, nil},
		{"POST", "/v1/bookings", kAlice, `{"resource_id":"RAL","start":"` + ts(0) + `","end":"` + ts(time.Hour) + `","nodes":1,"fare_class":"premium"}`, []string{"Idempotency-Key", "m"}},
		{"PATCH", "/v1/bookings/x", kAlice, `{"start":"` + ts(0) + `","end":"` + ts(time.Hour) + `","nodes":2}`, nil},
		{"PUT", "/v1/resources/MUT", kProv, `{"nodes":3,"base_cost":"0.49","currency":"GRD","time_zone":"Europe/London","slot_seconds":300,"hold_seconds":600}`, nil},
		{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"risk","service_level":0.01,"denial":"dcf"}`, nil},
		{"PUT", "/v1/resources/RAL/fare-classes", kProv, `[{"name":"premium","rank":1,"tau":{"peak":"3.38","off_peak":"2.63","super_saver":"1.88"},"penalty_rate":"0","denied_cost_factor":"5","vo":null}]`, nil},
		{"PUT", "/v1/resources/RAL/rate-periods", kProv, `[{"name":"peak","days":"weekdays","from":"06:00","to":"18:00"}]`, nil},
		{"PUT", "/v1/resources/RAL/queue", kProv, `{"nodes":41,"now":0,"policy":"easy","running":[{"id":"A","nodes":10,"end":100}],"queued":[{"id":"B","nodes":20,"runtime":100}]}`, nil},
		{"POST", "/v1/probes", kAlice, `{"tags":["vo-1"],"nodes":2,"earliest_start":"` + ts(0) + `","latest_end":"` + ts(3*time.Hour) + `","duration_seconds":3600,"alpha":0.5}`, nil},
		{"POST", "/v1/co-reservations", kAlice, `{"policy":"alpha","alpha":0.3,"parts":[{"resource_id":"RAL","nodes":1,"earliest_start":"` + ts(0) + `","latest_end":"` + ts(3*time.Hour) +
			`","duration_seconds":3600},{"tags":["vo-3"],"nodes":1,"earliest_start":"` + ts(0) + `","latest_end":"` + ts(5*time.Hour) + `","duration_seconds":1800,"after":{"part":0,"max_gap_seconds":600}}]}`, nil},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	junk := []string{`null`, `-1`, `1e309`, `"x"`, `[]`, `{}`, `true`, `"2026-02-30T00:00:00Z"`, `99999999999999999999`, `"\u0000"`}
	n := 0
	for _, v := range valid {
		for i := 0; i < 150; i++ {
			body := []byte(v.body)
			switch rng.IntN(4) {
			case 0:
				body[rng.IntN(len(body))] = byte(rng.IntN(256))
			case 1:
				body = body[:rng.IntN(len(body))]
			case 2:
				// Replace the value after one of the colons with junk.
				parts := strings.SplitN(string(body), ":", 2+rng.IntN(4))
				if len(parts) > 1 {
					k := 1 + rng.IntN(len(parts)-1)
					rest := parts[k]
					end := strings.IndexAny(rest, ",}]")
					if end < 0 {
						end = len(rest)
					}
					parts[k] = junk[rng.IntN(len(junk))] + rest[end:]
				}
				body = []byte(strings.Join(parts, ":"))
			case 3:
				body = append(body, body...)
			}
			c := v
			c.body = string(body)
			if c.body == "" {
				c.body = " "
			}
			if c.method == "POST" && c.path == "/v1/bookings" {
				c.hdr = []string{"Idempotency-Key", fmt.Sprintf("m%d", n)}
			}
			rec := c.run(e)
			n++
			if rec.Code >= 500 {
				t.Fatalf("%s %s %q: status %d: %s", c.method, c.path, c.body, rec.Code, rec.Body)
			}
			if rec.Code >= 400 && rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Fatalf("%s %s %q: %d without problem+json", c.method, c.path, c.body, rec.Code)
			}
		}
	}
}

// TestLimitsRoute reads booking control for one London weekday (UTC in
// winter): three period instances, each with the premium limit equal to the
// overbooking limit and nested limits below it.
func TestLimitsRoute(t *testing.T) {
	e, _ := newTestServer(t)
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	for day.Weekday() != time.Monday || day.Month() >= time.April && day.Month() < time.November {
		day = day.AddDate(0, 0, 1)
	}
	c := call{"GET", "/v1/resources/RAL/limits?from=" + day.Format(time.RFC3339) + "&to=" + day.AddDate(0, 0, 1).Format(time.RFC3339), kProv, "", nil}
	rec := c.run(e)
	if rec.Code != http.StatusOK {
		t.Fatalf("limits: %d %s", rec.Code, rec.Body)
	}
	var rep struct {
		ResourceID string `json:"resource_id"`
		Periods    []struct {
			Period           string         `json:"period"`
			Capacity         int            `json:"capacity"`
			OverbookingLimit int            `json:"overbooking_limit"`
			BookingLimits    map[string]int `json:"booking_limits"`
		} `json:"periods"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range rep.Periods {
		names = append(names, p.Period)
		if p.Capacity != 41 || p.BookingLimits["premium"] != p.OverbookingLimit ||
			!(p.BookingLimits["budget"] <= p.BookingLimits["business"] && p.BookingLimits["business"] <= p.BookingLimits["premium"]) {
			t.Fatalf("period %+v", p)
		}
	}
	if rep.ResourceID != "RAL" || strings.Join(names, ",") != "super_saver,peak,off_peak" {
		t.Fatalf("report for %s has periods %v, want super_saver,peak,off_peak", rep.ResourceID, names)
	}
	if rec := (call{"GET", "/v1/resources/NOPE/limits?from=" + day.Format(time.RFC3339) + "&to=" + day.AddDate(0, 0, 1).Format(time.RFC3339), kProv, "", nil}).run(e); rec.Code != 404 {
		t.Fatalf("unknown resource: %d", rec.Code)
	}
}

// TestProviderConfiguresResource creates a resource through the provider
// routes, sells it, then PUTs a best-effort queue snapshot and sees the delay
// premium appear in the offer's price (seed 001).
func TestProviderConfiguresResource(t *testing.T) {
	e, _ := newTestServer(t)
	must := func(c call, status int) []byte {
		t.Helper()
		rec := c.run(e)
		if rec.Code != status {
			t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, rec.Code, status, rec.Body)
		}
		return rec.Body.Bytes()
	}
	spec := `{"nodes":41,"base_cost":"0.10","currency":"GRD","time_zone":"UTC","slot_seconds":300,"hold_seconds":600}`
	must(call{"PUT", "/v1/resources/LAB", kProv, spec, nil}, 201)
	must(call{"PUT", "/v1/resources/LAB", kProv, spec, nil}, 200)
	// A new resource starts with the default periods and classes; periods
	// must stay priced by the classes, so keep the names and move the hours.
	must(call{"PUT", "/v1/resources/LAB/fare-classes", kProv, `[{"name":"premium","rank":1,"tau":{"peak":"2","off_peak":"2","super_saver":"2"},"penalty_rate":"0.5","denied_cost_factor":"3","vo":null}]`, nil}, 200)
	must(call{"PUT", "/v1/resources/LAB/rate-periods", kProv, `[{"name":"peak","days":"weekdays","from":"00:00","to":"24:00"},{"name":"off_peak","days":"weekends","from":"00:00","to":"12:00"},{"name":"super_saver","days":"weekends","from":"12:00","to":"24:00"}]`, nil}, 200)
	must(call{"PUT", "/v1/resources/LAB/overbooking", kProv, `{"policy":"none","denial":"dcf"}`, nil}, 200)

	start := time.Now().UTC().Truncate(time.Hour).Add(72 * time.Hour)
	q := `{"resource_id":"LAB","earliest_start":"` + start.Format(time.RFC3339) + `","latest_end":"` + start.Add(time.Hour).Format(time.RFC3339) + `","duration_seconds":3600,"nodes":4,"fare_class":"premium"}`
	type price struct{ Base, DelayPremium, Total string }
	offer := func() price {
		t.Helper()
		var out struct {
			Offers []struct {
				Price struct {
					Base         string `json:"base"`
					DelayPremium string `json:"delay_premium"`
					Total        string `json:"total"`
				} `json:"price"`
			} `json:"offers"`
		}
		if err := json.Unmarshal(must(call{"POST", "/v1/offers", kAlice, q, nil}, 200), &out); err != nil || len(out.Offers) == 0 {
			t.Fatalf("offers: %v %+v", err, out)
		}
		p := out.Offers[0].Price
		return price{p.Base, p.DelayPremium, p.Total}
	}
	before := offer()
	// 0.10 per node-second x 3600 s x 4 nodes x tau 2 (Eq. 7.11-7.12).
	if before.Base != "2880.00" || before.DelayPremium != "0.00" || before.Total != "2880.00" {
		t.Fatalf("price without a queue: %+v", before)
	}
	// A 40-node job queued behind nothing would run through the offer's
	// hour; 4 reserved nodes push it back, so the reservation pays for it.
	must(call{"PUT", "/v1/resources/LAB/queue", kProv, `{"nodes":41,"now":0,"policy":"conservative","running":[],"queued":[{"id":"B","nodes":40,"runtime":10000000}],"reservations":[]}`, nil}, 204)
	after := offer()
	if after.Base != before.Base || after.DelayPremium == "0.00" || after.Total == before.Total {
		t.Fatalf("price with a delaying queue: %+v (before %+v)", after, before)
	}
	var r struct {
		HasQueue    bool `json:"has_queue"`
		Nodes       int  `json:"nodes"`
		FareClasses []struct {
			Name string `json:"name"`
		} `json:"fare_classes"`
		Overbooking struct {
			Policy string `json:"policy"`
		} `json:"overbooking"`
	}
	if err := json.Unmarshal(must(call{"GET", "/v1/resources/LAB", kBill, "", nil}, 200), &r); err != nil {
		t.Fatal(err)
	}
	if !r.HasQueue || r.Nodes != 41 || len(r.FareClasses) != 1 || r.Overbooking.Policy != "none" {
		t.Fatalf("resource as configured: %+v", r)
	}
}

// TestReadyz is 200 while the service is open and 503 problem+json after.
func TestReadyz(t *testing.T) {
	e, svc := newTestServer(t)
	if rec := (call{"GET", "/readyz", "", "", nil}).run(e); rec.Code != 200 {
		t.Fatalf("readyz: %d", rec.Code)
	}
	svc.Close()
	rec := (call{"GET", "/readyz", "", "", nil}).run(e)
	if rec.Code != 503 || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("readyz after close: %d %s", rec.Code, rec.Body)
	}
	if rec := (call{"GET", "/healthz", "", "", nil}).run(e); rec.Code != 200 {
		t.Fatalf("healthz after close: %d", rec.Code)
	}
}

// TestModifyReprices changes a committed booking's nodes: the price follows
// and the invoice's total moves to the new price (the difference is posted,
// the charge is never edited).
func TestModifyReprices(t *testing.T) {
	e, _ := newTestServer(t)
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + 10*time.Hour)
	body := `{"resource_id":"RAL","start":"` + start.Format(time.RFC3339) + `","end":"` + start.Add(time.Hour).Format(time.RFC3339) + `","nodes":4,"fare_class":"premium"}`
	rec := call{"POST", "/v1/bookings", kAlice, body, []string{"Idempotency-Key", "mod-1"}}.run(e)
	if rec.Code != 201 {
		t.Fatalf("hold: %d %s", rec.Code, rec.Body)
	}
	var b struct {
		ID     string `json:"booking_id"`
		Status string `json:"status"`
		Nodes  int    `json:"nodes"`
		Price  struct {
			Total string `json:"total"`
		} `json:"price"`
	}
	json.Unmarshal(rec.Body.Bytes(), &b)
	if rec := (call{"PATCH", "/v1/bookings/" + b.ID, kAlice, `{"nodes":2}`, nil}).run(e); rec.Code != 409 {
		t.Fatalf("modify a held booking: %d %s, want 409", rec.Code, rec.Body)
	}
	if rec := (call{"POST", "/v1/bookings/" + b.ID + "/commit", kAlice, "", nil}).run(e); rec.Code != 200 {
		t.Fatalf("commit: %d %s", rec.Code, rec.Body)
	}
	first := b.Price.Total
	rec = call{"PATCH", "/v1/bookings/" + b.ID, kAlice, `{"nodes":2}`, nil}.run(e)
	if rec.Code != 200 {
		t.Fatalf("modify: %d %s", rec.Code, rec.Body)
	}
	json.Unmarshal(rec.Body.Bytes(), &b)
	if b.Status != "committed" || b.Nodes != 2 {
		t.Fatalf("modified booking %+v", b)
	}
	if !decimal.RequireFromString(b.Price.Total).Mul(decimal.NewFromInt(2)).Equal(decimal.RequireFromString(first)) {
		t.Fatalf("price %s after halving the nodes, was %s", b.Price.Total, first)
	}
	rec = call{"GET", "/v1/invoices?account_id=alice", kBill, "", nil}.run(e)
	var inv struct {
		Data []struct {
			Total string `json:"total"`
			Lines []struct {
				Kind string `json:"kind"`
			} `json:"lines"`
		} `json:"data"`
	}
	json.Unmarshal(rec.Body.Bytes(), &inv)
	if len(inv.Data) != 1 || inv.Data[0].Total != b.Price.Total || len(inv.Data[0].Lines) != 2 {
		t.Fatalf("invoice after modify: %s", rec.Body)
	}
}

// TestListingsPage walks alice's bookings and her invoices page by page, and
// asks offers over every resource (resource_id null).
func TestListingsPage(t *testing.T) {
	e, _ := newTestServer(t)
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + 10*time.Hour)
	ids := map[string]bool{}
	for i := 0; i < 5; i++ {
		st := start.Add(time.Duration(i) * time.Hour)
		body := `{"resource_id":"RAL","start":"` + st.Format(time.RFC3339) + `","end":"` + st.Add(time.Hour).Format(time.RFC3339) + `","nodes":1,"fare_class":"premium"}`
		rec := call{"POST", "/v1/bookings", kAlice, body, []string{"Idempotency-Key", fmt.Sprintf("page-%d", i)}}.run(e)
		var b struct {
			ID string `json:"booking_id"`
		}
		if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &b) != nil {
			t.Fatalf("hold %d: %d %s", i, rec.Code, rec.Body)
		}
		ids[b.ID] = true
		if i%2 == 0 {
			if rec := (call{"POST", "/v1/bookings/" + b.ID + "/commit", kAlice, "", nil}).run(e); rec.Code != 200 {
				t.Fatalf("commit: %d %s", rec.Code, rec.Body)
			}
		}
	}
	type page struct {
		Data []struct {
			ID     string `json:"booking_id"`
			Status string `json:"status"`
		} `json:"data"`
		HasMore    bool    `json:"has_more"`
		NextCursor *string `json:"next_cursor"`
	}
	seen := map[string]bool{}
	path := "/v1/bookings?limit=2"
	for pages := 0; ; pages++ {
		rec := call{"GET", path, kAlice, "", nil}.run(e)
		var p page
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &p) != nil || pages > 5 {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		for _, b := range p.Data {
			if seen[b.ID] || !ids[b.ID] {
				t.Fatalf("page %d repeats or invents %s", pages, b.ID)
			}
			seen[b.ID] = true
		}
		if !p.HasMore {
			if p.NextCursor != nil || len(p.Data) > 2 {
				t.Fatalf("last page: %s", rec.Body)
			}
			break
		}
		if p.NextCursor == nil || len(p.Data) != 2 {
			t.Fatalf("page with more: %s", rec.Body)
		}
		path = "/v1/bookings?limit=2&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	if len(seen) != 5 {
		t.Fatalf("pages held %d of 5 bookings", len(seen))
	}
	var held page
	rec := call{"GET", "/v1/bookings?status=held", kAlice, "", nil}.run(e)
	json.Unmarshal(rec.Body.Bytes(), &held)
	if len(held.Data) != 2 {
		t.Fatalf("held bookings: %s", rec.Body)
	}

	// Invoices: this month's, and a month with nothing.
	period := time.Now().UTC().Format("2006-01")
	rec = call{"GET", "/v1/invoices?account_id=alice&period=" + period + "&limit=1", kBill, "", nil}.run(e)
	var inv struct {
		Data []struct {
			Lines []struct {
				Kind string `json:"kind"`
			} `json:"lines"`
		} `json:"data"`
		HasMore bool `json:"has_more"`
	}
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &inv) != nil || len(inv.Data) != 1 || len(inv.Data[0].Lines) != 3 || inv.HasMore {
		t.Fatalf("invoice of %s: %d %s", period, rec.Code, rec.Body)
	}
	rec = call{"GET", "/v1/invoices?account_id=alice&period=2001-01", kBill, "", nil}.run(e)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"data":[]`) {
		t.Fatalf("invoice of 2001-01: %d %s", rec.Code, rec.Body)
	}

	// Her balance is the three charges, as on the invoice.
	rec = call{"GET", "/v1/ledger/balance?account_id=alice", kBill, "", nil}.run(e)
	var bal struct {
		AccountID string `json:"account_id"`
		Balances  []struct {
			Currency string `json:"currency"`
			Amount   string `json:"amount"`
		} `json:"balances"`
	}
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &bal) != nil || len(bal.Balances) != 1 || bal.Balances[0].Currency != "GRD" {
		t.Fatalf("balance: %d %s", rec.Code, rec.Body)
	}
	rec = call{"GET", "/v1/invoices?account_id=alice", kBill, "", nil}.run(e)
	var all struct {
		Data []struct {
			Total string `json:"total"`
		} `json:"data"`
	}
	json.Unmarshal(rec.Body.Bytes(), &all)
	if len(all.Data) != 1 || all.Data[0].Total != bal.Balances[0].Amount {
		t.Fatalf("balance %s, invoices %s", bal.Balances[0].Amount, rec.Body)
	}

	// Offers over every resource alice may book.
	q := `{"resource_id":null,"earliest_start":"` + start.Format(time.RFC3339) + `","latest_end":"` + start.Add(2*time.Hour).Format(time.RFC3339) + `","duration_seconds":3600,"nodes":1,"fare_class":"premium"}`
	rec = call{"POST", "/v1/offers", kAlice, q, nil}.run(e)
	var offers struct {
		Offers []struct {
			ResourceID string `json:"resource_id"`
		} `json:"offers"`
	}
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &offers) != nil {
		t.Fatalf("offers: %d %s", rec.Code, rec.Body)
	}
	res := map[string]bool{}
	for _, o := range offers.Offers {
		res[o.ResourceID] = true
	}
	if len(res) < 2 {
		t.Fatalf("offers over every resource came from %v", res)
	}
}
