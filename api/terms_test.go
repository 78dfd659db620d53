package api

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking/boltstore"
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/service"
)

// newServerAt is the demo service on a bbolt store, on clk.
func newServerAt(t *testing.T, clk *testClock) (*echo.Echo, *service.Service) {
	t.Helper()
	store, err := boltstore.Open(t.TempDir(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(cfg, deploytest.Embedded(t, store), service.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	e := New(svc, Options{Ready: readyOf(svc)})
	validating.Store(e, t)
	t.Cleanup(func() { validating.Delete(e) })
	return e, svc
}

var keySeq atomic.Int64

// bookBudget holds and commits a budget booking of 4 nodes on RAL over
// [start, start+2h) and returns its id and the answer's fields.
func bookBudget(t *testing.T, e *echo.Echo, start time.Time) (string, map[string]any) {
	t.Helper()
	body := fmt.Sprintf(`{"resource_id":"RAL","start":%q,"end":%q,"nodes":4,"fare_class":"budget"}`,
		start.Format(time.RFC3339), start.Add(2*time.Hour).Format(time.RFC3339))
	var b map[string]any
	json.Unmarshal(call{"POST", "/v1/bookings", kAlice, body, []string{"Idempotency-Key", fmt.Sprint("k", keySeq.Add(1))}}.must(t, e, 201).Body.Bytes(), &b)
	id := b["booking_id"].(string)
	json.Unmarshal(call{"POST", "/v1/bookings/" + id + "/commit", kAlice, "", nil}.must(t, e, 200).Body.Bytes(), &b)
	return id, b
}

// cancelKeeps cancels booking id and returns the penalty it kept and the
// booking's price.
func cancelKeeps(t *testing.T, e *echo.Echo, id string) (penalty, total string) {
	t.Helper()
	var b struct {
		Penalty string `json:"penalty"`
		Price   struct {
			Total string `json:"total"`
		} `json:"price"`
	}
	json.Unmarshal(call{"POST", "/v1/bookings/" + id + "/cancel", kAlice, "", nil}.must(t, e, 200).Body.Bytes(), &b)
	return b.Penalty, b.Price.Total
}

// putBudget changes RAL's budget class with edit (nil: removes it).
func putBudget(t *testing.T, e *echo.Echo, edit func(c map[string]any)) {
	t.Helper()
	var classes []map[string]any
	json.Unmarshal(call{"GET", "/v1/resources/RAL/fare-classes", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &classes)
	out := classes[:0]
	for _, c := range classes {
		if c["name"] == "budget" {
			if edit == nil {
				continue
			}
			edit(c)
		}
		out = append(out, c)
	}
	body, _ := json.Marshal(out)
	call{"PUT", "/v1/resources/RAL/fare-classes", kProv, string(body), nil}.must(t, e, 200)
}

// TestSoldTermsStay: a budget booking sold at a 25% penalty keeps 25% when
// cancelled after the provider raised the class's penalty_rate to 1, and
// after the provider removed the class; a booking sold after the raise
// keeps 100%. Before bookings carried their terms, the first cancel kept
// the whole price and the second kept nothing.
func TestSoldTermsStay(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)}
	e, _ := newServerAt(t, clk)
	start := clk.Now().Add(48 * time.Hour)
	first, b := bookBudget(t, e, start)
	terms, _ := json.Marshal(b["terms"])
	if want := `{"cancellation":[{"before_start_seconds":0,"penalty_rate":"0.25"}],"denied_cost_factor":"3","no_show_penalty_rate":"0.25","source":"sale"}`; string(terms) != want {
		t.Fatalf("terms %s, want %s", terms, want)
	}
	second, _ := bookBudget(t, e, start.Add(4*time.Hour))
	putBudget(t, e, func(c map[string]any) { c["penalty_rate"] = "1" })
	later, _ := bookBudget(t, e, start.Add(8*time.Hour))

	pen, total := cancelKeeps(t, e, first)
	if want := quarter(t, total); pen != want {
		t.Errorf("after the raise the first booking kept %s of %s, want %s", pen, total, want)
	}
	if pen, total := cancelKeeps(t, e, later); pen != total {
		t.Errorf("a booking sold after the raise kept %s of %s, want all", pen, total)
	}
	putBudget(t, e, nil)
	pen, total = cancelKeeps(t, e, second)
	if want := quarter(t, total); pen != want {
		t.Errorf("after the class was removed the second booking kept %s of %s, want %s", pen, total, want)
	}
}

// quarter is 25% of a money string, at two decimals.
func quarter(t *testing.T, total string) string {
	t.Helper()
	return share(t, total, "0.25")
}

// share is rate x total at two decimals, half-even.
func share(t *testing.T, total, rate string) string {
	t.Helper()
	d, err := decimal.NewFromString(total)
	if err != nil {
		t.Fatalf("total %q: %v", total, err)
	}
	return d.Mul(decimal.RequireFromString(rate)).RoundBank(2).StringFixed(2)
}

// TestCancellationByLeadTime: a budget class with a schedule (nothing kept
// a week ahead, 25% a day ahead, 50% an hour ahead, all of it closer in)
// keeps, at each exact boundary instant and one second after it, the
// step's rate; each booking carries the schedule it was sold with.
func TestCancellationByLeadTime(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	clk := &testClock{t: t0}
	e, _ := newServerAt(t, clk)
	putBudget(t, e, func(c map[string]any) {
		c["cancellation"] = []map[string]any{{"before_start_seconds": 604800, "penalty_rate": "0"},
			{"before_start_seconds": 86400, "penalty_rate": "0.25"}, {"before_start_seconds": 3600, "penalty_rate": "0.5"},
			{"before_start_seconds": 0, "penalty_rate": "1"}}
	})
	start := t0.Add(10 * 24 * time.Hour)
	cases := []struct {
		before time.Duration
		rate   string
	}{
		{604800 * time.Second, "0"}, {604799 * time.Second, "0.25"}, {86400 * time.Second, "0.25"},
		{86399 * time.Second, "0.5"}, {3600 * time.Second, "0.5"}, {3599 * time.Second, "1"}, {time.Second, "1"},
	}
	ids := make([]string, len(cases))
	for i := range cases {
		ids[i], _ = bookBudget(t, e, start.Add(time.Duration(i)*2*time.Hour))
	}
	for i, c := range cases { // in time order
		clk.Set(start.Add(time.Duration(i)*2*time.Hour - c.before))
		pen, total := cancelKeeps(t, e, ids[i])
		if want := share(t, total, c.rate); pen != want {
			t.Errorf("cancelled %s before the start: kept %s of %s, want %s (rate %s)", c.before, pen, total, want, c.rate)
		}
	}
}

// TestScheduleBadInput: a schedule out of order or a rate outside [0, 1]
// is a 422 naming the step's field, and changes nothing.
func TestScheduleBadInput(t *testing.T) {
	e, _ := newTestServer(t)
	before := call{"GET", "/v1/resources/RAL/fare-classes", kProv, "", nil}.must(t, e, 200).Body.String()
	var classes []map[string]any
	json.Unmarshal([]byte(before), &classes)
	for _, c := range []struct {
		sched []map[string]any
		field string
	}{
		{[]map[string]any{{"before_start_seconds": 3600, "penalty_rate": "0.5"}, {"before_start_seconds": 86400, "penalty_rate": "0.25"}, {"before_start_seconds": 0, "penalty_rate": "1"}},
			"[2].cancellation[1].before_start_seconds"},
		{[]map[string]any{{"before_start_seconds": 86400, "penalty_rate": "1.01"}, {"before_start_seconds": 0, "penalty_rate": "1"}}, "[2].cancellation[0].penalty_rate"},
		{[]map[string]any{{"before_start_seconds": 0, "penalty_rate": "-0.5"}}, "[2].cancellation[0].penalty_rate"},
	} {
		classes[2]["cancellation"] = c.sched
		body, _ := json.Marshal(classes)
		call{"PUT", "/v1/resources/RAL/fare-classes", kProv, string(body), nil}.wantProblem(t, e, 422, c.field)
	}
	after := call{"GET", "/v1/resources/RAL/fare-classes", kProv, "", nil}.must(t, e, 200).Body.String()
	if after != before {
		t.Fatalf("a refused PUT changed the classes:\n%s\n%s", before, after)
	}
}

// TestQuotesOverHTTP: a cancellation quote and a modification quote are
// answered as the OpenAPI document says; a cancel or PATCH carrying one
// posts its amounts; an empty, forged or expired quote id, or a quote of
// another account's booking, is a 4xx naming the field and posts nothing.
func TestQuotesOverHTTP(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	clk := &testClock{t: t0}
	e, _ := newServerAt(t, clk)
	start := t0.Add(48 * time.Hour)
	id, _ := bookBudget(t, e, start)
	other, _ := bookBudget(t, e, start.Add(4*time.Hour))
	var q struct {
		ID         string    `json:"quote_id"`
		Penalty    string    `json:"penalty"`
		Refund     string    `json:"refund"`
		ValidUntil time.Time `json:"valid_until"`
		Price      struct {
			Total string `json:"total"`
		} `json:"price"`
	}
	json.Unmarshal(call{"GET", "/v1/bookings/" + id + "/cancellation", kAlice, "", nil}.must(t, e, 200).Body.Bytes(), &q)
	if q.Penalty != quarter(t, q.Refund) || !q.ValidUntil.Equal(t0.Add(300*time.Second)) {
		t.Fatalf("cancellation quote %+v", q)
	}
	call{"GET", "/v1/bookings/" + id + "/cancellation", kBob, "", nil}.wantProblem(t, e, 404, "")
	call{"POST", "/v1/bookings/" + id + "/quote", kAlice, `{}`, nil}.wantProblem(t, e, 422, "body")
	for _, c := range []struct {
		body  string
		code  int
		field string
	}{
		{`{"quote_id":""}`, 422, "quote_id"}, {`{"quote_id":"qt_forged.AAAA"}`, 422, "quote_id"}, {`{"quote":"x"}`, 400, "quote"},
	} {
		call{"POST", "/v1/bookings/" + other + "/cancel", kAlice, c.body, nil}.wantProblem(t, e, c.code, c.field)
	}
	call{"POST", "/v1/bookings/" + other + "/cancel", kAlice, `{"quote_id":"` + q.ID + `"}`, nil}.wantProblem(t, e, 422, "quote_id", "another booking")
	clk.Set(t0.Add(300 * time.Second))
	call{"POST", "/v1/bookings/" + id + "/cancel", kAlice, `{"quote_id":"` + q.ID + `"}`, nil}.wantProblem(t, e, 409, "quote_id", "expired")
	var b bookingMoney
	json.Unmarshal(call{"GET", "/v1/bookings/" + id, kAlice, "", nil}.must(t, e, 200).Body.Bytes(), &b)
	if b.Status != "committed" || b.Penalty != "" {
		t.Fatalf("after the refused cancels: %+v", b)
	}

	newEnd := start.Add(3 * time.Hour).Format(time.RFC3339)
	json.Unmarshal(call{"POST", "/v1/bookings/" + id + "/quote", kAlice, `{"end":"` + newEnd + `"}`, nil}.must(t, e, 200).Body.Bytes(), &q)
	var got struct {
		End   time.Time `json:"end"`
		Price struct {
			Total string `json:"total"`
		} `json:"price"`
	}
	json.Unmarshal(call{"PATCH", "/v1/bookings/" + id, kAlice, `{"quote_id":"` + q.ID + `"}`, nil}.must(t, e, 200).Body.Bytes(), &got)
	if got.Price.Total != q.Price.Total || got.End.Format(time.RFC3339) != newEnd {
		t.Fatalf("PATCH with the quote: %+v, want the quoted %s", got, q.Price.Total)
	}
	json.Unmarshal(call{"GET", "/v1/bookings/" + id + "/cancellation", kAlice, "", nil}.must(t, e, 200).Body.Bytes(), &q)
	json.Unmarshal(call{"POST", "/v1/bookings/" + id + "/cancel", kAlice, `{"quote_id":"` + q.ID + `"}`, nil}.must(t, e, 200).Body.Bytes(), &b)
	if b.Penalty != q.Penalty || b.Refund != q.Refund {
		t.Fatalf("cancel with the quote: penalty %s refund %s, quoted %s and %s", b.Penalty, b.Refund, q.Penalty, q.Refund)
	}
}
