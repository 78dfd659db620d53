package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// coDay is 00:00 UTC of a Tuesday two weeks ahead.
func coDay() time.Time {
	d := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 14)
	for d.Weekday() != time.Tuesday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

func hhmm(d time.Time, h int) string { return d.Add(time.Duration(h) * time.Hour).Format(time.RFC3339) }

// coView is what the co-reservation routes answer, as far as the tests read it.
type coView struct {
	ID       string `json:"co_reservation_id"`
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
	Failure  *struct {
		Part int `json:"part"`
	} `json:"failure"`
	Parts []struct {
		ID         string    `json:"booking_id"`
		Status     string    `json:"status"`
		ResourceID string    `json:"resource_id"`
		Start      time.Time `json:"start"`
		End        time.Time `json:"end"`
		Nodes      int       `json:"nodes"`
		Penalty    *string   `json:"penalty"`
	} `json:"parts"`
}

func decodeView(t *testing.T, body []byte) coView {
	t.Helper()
	var v coView
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return v
}

// coDo runs c and fails unless it answers want; it returns the view.
func coDo(t *testing.T, e *echo.Echo, c call, want int) coView {
	t.Helper()
	rec := c.run(e)
	if rec.Code != want {
		t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, rec.Code, want, rec.Body)
	}
	if want >= 400 {
		checkProblem(t, c, rec)
		return coView{}
	}
	return decodeView(t, rec.Body.Bytes())
}

// heldOf counts key's bookings held now.
func heldOf(t *testing.T, e *echo.Echo, key string) []string {
	t.Helper()
	rec := call{"GET", "/v1/bookings?status=held&limit=1000", key, "", nil}.run(e)
	if rec.Code != 200 {
		t.Fatalf("list: %d %s", rec.Code, rec.Body)
	}
	var page struct {
		Data []struct {
			ID string `json:"booking_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range page.Data {
		ids = append(ids, b.ID)
	}
	return ids
}

func TestCoReservationHeldThenCommitted(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	body := `{"policy":"earliest","parts":[
		{"resource_id":"RAL","nodes":4,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 13) + `","duration_seconds":3600},
		{"tags":["vo-3"],"nodes":4,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 13) + `","duration_seconds":3600,"same_start_as":0}]}`
	rec := call{"POST", "/v1/co-reservations", kAlice, body, nil}.run(e)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	v := decodeView(t, rec.Body.Bytes())
	if loc := rec.Header().Get("Location"); loc != "/v1/co-reservations/"+v.ID {
		t.Fatalf("Location %q", loc)
	}
	if v.Status != "held" || len(v.Parts) != 2 || v.Parts[0].Status != "held" || v.Parts[1].Status != "held" {
		t.Fatalf("create: %+v", v)
	}
	if !v.Parts[0].Start.Equal(v.Parts[1].Start) || v.Parts[0].ResourceID != "RAL" {
		t.Fatalf("parts: %+v", v.Parts)
	}
	coDo(t, e, call{"GET", "/v1/co-reservations/" + v.ID, kBob, "", nil}, 404)
	c := coDo(t, e, call{"POST", "/v1/co-reservations/" + v.ID + "/commit", kAlice, "", nil}, 200)
	if c.Status != "committed" || c.Parts[0].Status != "committed" || c.Parts[1].Status != "committed" {
		t.Fatalf("commit: %+v", c)
	}
	g := coDo(t, e, call{"GET", "/v1/co-reservations/" + v.ID, kAlice, "", nil}, 200)
	if g.Status != "committed" {
		t.Fatalf("get: %+v", g)
	}
	x := coDo(t, e, call{"POST", "/v1/co-reservations/" + v.ID + "/cancel", kAlice, "", nil}, 200)
	if x.Status != "cancelled" || x.Parts[0].Status != "cancelled" || x.Parts[0].Penalty == nil || *x.Parts[0].Penalty == "0.00" {
		t.Fatalf("cancel: %+v", x)
	}
	// Each request, with the outcome counted for seed 003's metrics.
	mrec := call{"GET", "/metrics", "", "", nil}.run(e)
	if !strings.Contains(mrec.Body.String(), `slotfare_coreservations_total{outcome="held"} 1`) {
		t.Fatalf("metrics lack the held co-reservation")
	}
}

func TestCoReservationChained(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	body := `{"policy":"cheapest","parts":[
		{"resource_id":"RAL","nodes":4,"earliest_start":"` + hhmm(d, 8) + `","latest_end":"` + hhmm(d, 14) + `","duration_seconds":7200},
		{"resource_id":"Imperial","nodes":8,"earliest_start":"` + hhmm(d, 8) + `","latest_end":"` + hhmm(d, 20) + `","duration_seconds":3600,
		 "after":{"part":0,"max_gap_seconds":0}}]}`
	v := coDo(t, e, call{"POST", "/v1/co-reservations", kAlice, body, nil}, 201)
	if !v.Parts[1].Start.Equal(v.Parts[0].End) {
		t.Fatalf("B starts %v, A ends %v", v.Parts[1].Start, v.Parts[0].End)
	}
}

func TestCoReservationInfeasibleHoldsNothing(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	// bob takes all of Torino's 2 nodes for the day.
	hold := `{"resource_id":"Torino","start":"` + hhmm(d, 0) + `","end":"` + hhmm(d, 24) + `","nodes":2,"fare_class":"premium"}`
	call{"POST", "/v1/bookings", kBob, hold, []string{"Idempotency-Key", "fill"}}.must(t, e, 201)
	body := `{"parts":[
		{"resource_id":"RAL","nodes":4,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 13) + `","duration_seconds":3600},
		{"resource_id":"Torino","nodes":1,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 13) + `","duration_seconds":3600}]}`
	c := call{"POST", "/v1/co-reservations", kAlice, body, nil}
	rec := c.run(e)
	p := checkProblem(t, c, rec)
	if rec.Code != http.StatusConflict || p.Errors[0].Field != "parts[1]" {
		t.Fatalf("infeasible: %d %s", rec.Code, rec.Body)
	}
	if held := heldOf(t, e, kAlice); len(held) != 0 {
		t.Fatalf("alice holds %v after a refused co-reservation", held)
	}
}

func TestCoReservationBadInput(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	part := func(extra string) string {
		return `{"resource_id":"RAL","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 11) + `","duration_seconds":3600` + extra + `}`
	}
	nine := strings.TrimSuffix(strings.Repeat(part("")+",", 9), ",")
	cases := []struct {
		body  string
		field string
	}{
		{`{"parts":[]}`, "parts"},
		{`{"parts":[` + nine + `]}`, "parts"},
		{`{"parts":[` + part("") + `,` + strings.Replace(part(""), `3600`, `10800`, 1) + `]}`, "parts[1].duration_seconds"},
		{`{"parts":[` + part(`,"after":{"part":1,"max_gap_seconds":0}`) + `,` + part(`,"same_start_as":0`) + `]}`, "parts[0].after.part"},
		{`{"parts":[` + part("") + `,` + part(`,"same_start_as":7`) + `]}`, "parts[1].same_start_as"},
		{`{"parts":[` + part("") + `,` + strings.Replace(part(""), `"nodes":2`, `"nodes":0`, 1) + `]}`, "parts[1].nodes"},
		{`{"parts":[` + part("") + `,` + strings.Replace(part(""), `"duration_seconds":3600`, `"profile":"blast"`, 1) + `]}`, "parts[1].profile"},
		{`{"parts":[` + strings.Replace(part(""), hhmm(d, 9), "soon", 1) + `]}`, "parts[0].earliest_start"},
		{`{"policy":"fastest","parts":[` + part("") + `]}`, "policy"},
		{`{"parts":[` + strings.Replace(part(""), `"RAL"`, `"Atlantis"`, 1) + `]}`, "parts[0].resource_id"},
	}
	for _, tc := range cases {
		c := call{"POST", "/v1/co-reservations", kAlice, tc.body, nil}
		rec := c.run(e)
		p := checkProblem(t, c, rec)
		if rec.Code != http.StatusUnprocessableEntity || p.Errors[0].Field != tc.field {
			t.Errorf("%s: %d %+v, want 422 on %s", trunc(tc.body), rec.Code, p.Errors, tc.field)
		}
	}
	for _, c := range []call{
		{"POST", "/v1/probes", kAlice, `{"tags":["vo-1"],"nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 10) + `","duration_seconds":7200}`, nil},
		{"POST", "/v1/probes", kAlice, `{"nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 10) + `","duration_seconds":600}`, nil},
	} {
		rec := c.run(e)
		checkProblem(t, c, rec)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("probe %s: %d", trunc(c.body), rec.Code)
		}
	}
	if held := heldOf(t, e, kAlice); len(held) != 0 {
		t.Fatalf("alice holds %v after refused requests", held)
	}
}

func TestProbe(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	c := call{"POST", "/v1/probes", kAlice, `{"tags":["vo-1"],"nodes":2,"earliest_start":"` + hhmm(d, 0) + `","latest_end":"` + hhmm(d, 24) + `","duration_seconds":3600,"alpha":0}`, nil}
	rec := c.run(e)
	if rec.Code != 200 {
		t.Fatalf("probe: %d %s", rec.Code, rec.Body)
	}
	var out struct {
		Candidates []struct {
			ResourceID string    `json:"resource_id"`
			Start      time.Time `json:"start"`
			End        time.Time `json:"end"`
			Price      struct {
				Total string `json:"total"`
			} `json:"price"`
			Rating float64 `json:"rating"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for i, c := range out.Candidates {
		per[c.ResourceID]++
		if i > 0 && c.Start.Before(out.Candidates[i-1].Start) {
			t.Fatalf("alpha 0 rates earlier first: %v after %v", c.Start, out.Candidates[i-1].Start)
		}
		if c.End.Sub(c.Start) != time.Hour || c.Price.Total == "" {
			t.Fatalf("candidate %+v", c)
		}
	}
	if per["RAL"] != 5 || per["Imperial"] != 5 || len(per) != 2 {
		t.Fatalf("candidates per resource %v, want the default cap of 5 on each vo-1 resource", per)
	}
}

// TestCoReservationHoldsExpire uses a resource whose holds last 2 s (3 at
// most, their expiry rounded up to a whole second): the
// ticker expires them, the co-reservation is expired whole, its commit is
// a 409 naming the part, and the nodes can be co-reserved again.
func TestCoReservationHoldsExpire(t *testing.T) {
	e, svc := newTestServer(t)
	d := coDay()
	call{"PUT", "/v1/resources/Quick", kProv, `{"nodes":2,"base_cost":"0.49","time_zone":"UTC","hold_seconds":2}`, nil}.must(t, e, 201)
	body := `{"parts":[
		{"resource_id":"Quick","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 10) + `","duration_seconds":3600},
		{"resource_id":"RAL","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 10) + `","duration_seconds":3600}]}`
	v := coDo(t, e, call{"POST", "/v1/co-reservations", kAlice, body, nil}, 201)
	coDo(t, e, call{"POST", "/v1/co-reservations", kAlice, body, nil}, 409) // the nodes are held
	time.Sleep(3100 * time.Millisecond)                                     // 2 s, rounded up to a whole second
	if err := svc.Tick(time.Now()); err != nil {
		t.Fatal(err)
	}
	c := call{"POST", "/v1/co-reservations/" + v.ID + "/commit", kAlice, "", nil}
	rec := c.run(e)
	if p := checkProblem(t, c, rec); rec.Code != 409 || p.Errors[0].Field != "parts[0]" {
		t.Fatalf("commit after expiry: %d %s", rec.Code, rec.Body)
	}
	g := coDo(t, e, call{"GET", "/v1/co-reservations/" + v.ID, kAlice, "", nil}, 200)
	if g.Status != "expired" || g.Failure == nil || g.Failure.Part != 0 || g.Parts[0].Status != "expired" || g.Parts[1].Status != "cancelled" {
		t.Fatalf("after expiry: %+v", g)
	}
	if held := heldOf(t, e, kAlice); len(held) != 0 {
		t.Fatalf("holds left: %v", held)
	}
	coDo(t, e, call{"POST", "/v1/co-reservations", kAlice, body, nil}, 201)
}

// TestCoReservationsContend runs 50 co-reservations at once for the same
// nodes (Torino has 2, with no overbooking; each asks 1 of them and 1 of
// Lyon's for an hour in a 3-hour window): every one ends with both parts
// held (201) or none (409), never more held than fits, and committing the
// held ones at once commits both parts of each.
func TestCoReservationsContend(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	body := `{"parts":[
		{"resource_id":"Torino","nodes":1,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 12) + `","duration_seconds":3600},
		{"resource_id":"Lyon","nodes":1,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 12) + `","duration_seconds":3600,"same_start_as":0}]}`
	const n = 50
	views := make([]coView, n)
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := call{"POST", "/v1/co-reservations", kAlice, body, nil}.run(e)
			codes[i] = rec.Code
			if rec.Code == 201 {
				if err := json.Unmarshal(rec.Body.Bytes(), &views[i]); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	var ok []coView
	perHour := map[time.Time]int{}
	for i, c := range codes {
		switch c {
		case 201:
			v := views[i]
			if len(v.Parts) != 2 || v.Parts[0].Status != "held" || v.Parts[1].Status != "held" {
				t.Fatalf("half held: %+v", v)
			}
			perHour[v.Parts[0].Start]++
			ok = append(ok, v)
		case 409:
		default:
			t.Fatalf("request %d answered %d", i, c)
		}
	}
	for h, k := range perHour {
		if k > 2 {
			t.Fatalf("%d co-reservations hold Torino at %v: more than its 2 nodes", k, h)
		}
	}
	if len(ok) < 2 || len(ok) > 6 {
		t.Fatalf("%d co-reservations held, want 2..6 (3 hours x 2 nodes)", len(ok))
	}
	held := heldOf(t, e, kAlice)
	if len(held) != 2*len(ok) {
		t.Fatalf("%d holds for %d co-reservations: a refused one left a hold", len(held), len(ok))
	}
	for i := range ok {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := call{"POST", "/v1/co-reservations/" + ok[i].ID + "/commit", kAlice, "", nil}.run(e)
			if rec.Code != 200 {
				t.Errorf("commit %s: %d %s", ok[i].ID, rec.Code, rec.Body)
				return
			}
			v := decodeView(t, rec.Body.Bytes())
			if v.Status != "committed" || v.Parts[0].Status != "committed" || v.Parts[1].Status != "committed" {
				t.Errorf("half committed: %+v", v)
			}
		}()
	}
	wg.Wait()
	if held := heldOf(t, e, kAlice); len(held) != 0 {
		t.Fatalf("holds left after the commits: %v", held)
	}
}

// TestCoReservationIdempotencyKey: with an Idempotency-Key, a retry of the
// same request (its JSON laid out otherwise, its times in another offset)
// answers the first co-reservation, marked replayed, holding nothing more;
// the key with another request is a 409 naming the header.
func TestCoReservationIdempotencyKey(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	body := `{"parts":[{"resource_id":"RAL","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 13) + `","duration_seconds":3600},
		{"resource_id":"CERN","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 13) + `","duration_seconds":3600}]}`
	first := call{"POST", "/v1/co-reservations", kAlice, body, []string{"Idempotency-Key", "co-1"}}.run(e)
	if first.Code != http.StatusCreated || first.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v %s", first.Code, first.Header(), first.Body)
	}
	v := decodeView(t, first.Body.Bytes())
	plus1 := func(h int) string {
		return d.Add(time.Duration(h) * time.Hour).In(time.FixedZone("", 3600)).Format(time.RFC3339)
	}
	same := `{ "parts": [ {"duration_seconds":3600,"nodes":2,"resource_id":"RAL","latest_end":"` + plus1(13) + `","earliest_start":"` + plus1(9) + `"},
		{"resource_id":"CERN","nodes":2,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 13) + `","duration_seconds":3600}]}`
	again := call{"POST", "/v1/co-reservations", kAlice, same, []string{"Idempotency-Key", "co-1"}}.run(e)
	if again.Code != http.StatusCreated || again.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: %d %v %s", again.Code, again.Header(), again.Body)
	}
	if r := decodeView(t, again.Body.Bytes()); r.ID != v.ID || r.Parts[0].ID != v.Parts[0].ID {
		t.Fatalf("retry answered %s, first %s", r.ID, v.ID)
	}
	if held := heldOf(t, e, kAlice); len(held) != 2 {
		t.Fatalf("%d holds after a retry", len(held))
	}
	other := strings.Replace(body, `"nodes":2`, `"nodes":1`, 1)
	coDo(t, e, call{"POST", "/v1/co-reservations", kAlice, other, []string{"Idempotency-Key", "co-1"}}, 409)
	long := strings.Repeat("k", 256)
	coDo(t, e, call{"POST", "/v1/co-reservations", kAlice, body, []string{"Idempotency-Key", long}}, 400)
}
