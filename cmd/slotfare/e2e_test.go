package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/pricing"
)

const (
	keyProvider = "demo-provider"
	keyBilling  = "demo-billing"
	keyAlice    = "demo-alice"
	keyBob      = "demo-bob"
)

type priceJSON struct {
	Base         string `json:"base"`
	DelayPremium string `json:"delay_premium"`
	Total        string `json:"total"`
	Currency     string `json:"currency"`
}

type bookingJSON struct {
	ID            string    `json:"booking_id"`
	AccountID     string    `json:"account_id"`
	Status        string    `json:"status"`
	HoldExpiresAt *string   `json:"hold_expires_at"`
	ResourceID    string    `json:"resource_id"`
	Start         string    `json:"start"`
	End           string    `json:"end"`
	Nodes         int       `json:"nodes"`
	FareClass     string    `json:"fare_class"`
	Price         priceJSON `json:"price"`
	Penalty       *string   `json:"penalty"`
	Refund        *string   `json:"refund"`
	Compensation  *string   `json:"compensation"`
}

type offerJSON struct {
	OfferID    string    `json:"offer_id"`
	ResourceID string    `json:"resource_id"`
	Start      string    `json:"start"`
	End        string    `json:"end"`
	Nodes      int       `json:"nodes"`
	FareClass  string    `json:"fare_class"`
	Solution   bool      `json:"solution"`
	ExpiresAt  string    `json:"expires_at"`
	Price      priceJSON `json:"price"`
}

type invoiceJSON struct {
	InvoiceID string `json:"invoice_id"`
	AccountID string `json:"account_id"`
	Currency  string `json:"currency"`
	Lines     []struct {
		Kind      string `json:"kind"`
		BookingID string `json:"booking_id"`
		Amount    string `json:"amount"`
	} `json:"lines"`
	Subtotal string `json:"subtotal"`
	Total    string `json:"total"`
}

func dec(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("not a decimal string: %q", s)
	}
	return d
}

// nextWeekday is 10:00 UTC on the first Tuesday to Thursday at least two
// days ahead: inside the book-ahead horizon and in one rate period.
func nextWeekday(now time.Time) time.Time {
	d := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)
	for d.Weekday() < time.Tuesday || d.Weekday() > time.Thursday {
		d = d.AddDate(0, 0, 1)
	}
	return d.Add(10 * time.Hour)
}

func offersFor(t *testing.T, base, key string, q map[string]any) []offerJSON {
	t.Helper()
	var out struct {
		Offers []offerJSON `json:"offers"`
	}
	do(t, base, "POST", "/v1/offers", key, q).want(t, 200).json(t, &out)
	return out.Offers
}

func holdOffer(t *testing.T, base, key, offerID, idem string) bookingJSON {
	t.Helper()
	var b bookingJSON
	do(t, base, "POST", "/v1/bookings", key, map[string]string{"offer_id": offerID}, "Idempotency-Key", idem).want(t, 201).json(t, &b)
	return b
}

func act(t *testing.T, base, key, id, action string, status int) bookingJSON {
	t.Helper()
	var b bookingJSON
	r := do(t, base, "POST", "/v1/bookings/"+id+"/"+action, key, nil).want(t, status)
	if status == 200 {
		r.json(t, &b)
	}
	return b
}

func fareClasses(t *testing.T, base, resource string) []pricing.FareClass {
	t.Helper()
	var r struct {
		FareClasses json.RawMessage `json:"fare_classes"`
	}
	do(t, base, "GET", "/v1/resources/"+resource, keyAlice, nil).want(t, 200).json(t, &r)
	fc, err := pricing.DecodeFareClasses(r.FareClasses)
	if err != nil {
		t.Fatalf("fare classes of %s: %v (%s)", resource, err, r.FareClasses)
	}
	return fc
}

// TestE2EBookingFlow drives the demo configuration through the real binary:
// offers, hold, idempotent retry, commit, isolation between users, cancel
// with penalty, invoices for billing, and the ops endpoints.
func TestE2EBookingFlow(t *testing.T) { bookingFlow(t) }

// TestE2EBookingFlowOnRedis runs the same flow, unchanged, on a replica
// whose state is on a real redis-server (append-only file, fsync always).
func TestE2EBookingFlowOnRedis(t *testing.T) {
	rds := durableRedis(t)
	bookingFlow(t, "--redis", rds.URL())
}

// bookingFlow is the end-to-end flow of the service on a server started
// with extra flags.
func bookingFlow(t *testing.T, extra ...string) {
	s := startServer(t, t.TempDir(), extra...)
	base := s.base

	if !strings.Contains(s.stdout.String(), "demo-alice") {
		t.Errorf("serve did not print the demo keys:\n%s", s.stdout)
	}
	do(t, base, "GET", "/healthz", "", nil).want(t, 200)

	// Resources: any role sees them.
	var rs struct {
		Data []struct {
			ID       string `json:"id"`
			Nodes    int    `json:"nodes"`
			BaseCost string `json:"base_cost"`
		} `json:"data"`
	}
	do(t, base, "GET", "/v1/resources", keyBilling, nil).want(t, 200).json(t, &rs)
	if len(rs.Data) != 10 {
		t.Fatalf("%d resources, want the 10 of Table 7.7", len(rs.Data))
	}

	start := nextWeekday(time.Now())
	q := map[string]any{
		"resource_id": "RAL", "earliest_start": start.Format(time.RFC3339), "latest_end": start.Add(4 * time.Hour).Format(time.RFC3339),
		"duration_seconds": 3600, "nodes": 4, "fare_class": "premium",
	}
	offers := offersFor(t, base, keyAlice, q)
	if len(offers) == 0 || !offers[0].Solution {
		t.Fatalf("no solution offered: %+v", offers)
	}
	o := offers[0]
	if o.ResourceID != "RAL" || o.Nodes != 4 || o.FareClass != "premium" || o.Price.Currency != "GRD" || !dec(t, o.Price.Total).IsPositive() {
		t.Fatalf("offer %+v", o)
	}
	if !dec(t, o.Price.Total).Equal(dec(t, o.Price.Base).Add(dec(t, o.Price.DelayPremium))) {
		t.Fatalf("total %s != base %s + delay premium %s", o.Price.Total, o.Price.Base, o.Price.DelayPremium)
	}

	// Hold, with the idempotency key required and honoured.
	do(t, base, "POST", "/v1/bookings", keyAlice, map[string]string{"offer_id": o.OfferID}).want(t, 400).problem(t)
	b := holdOffer(t, base, keyAlice, o.OfferID, "flow-1")
	if b.Status != "held" || b.HoldExpiresAt == nil || b.AccountID != "alice" || b.Price.Total != o.Price.Total {
		t.Fatalf("held booking %+v (offer price %s)", b, o.Price.Total)
	}
	r := do(t, base, "POST", "/v1/bookings", keyAlice, map[string]string{"offer_id": o.OfferID}, "Idempotency-Key", "flow-1").want(t, 201)
	var again bookingJSON
	r.json(t, &again)
	if again.ID != b.ID {
		t.Fatalf("idempotent retry made booking %s, first was %s", again.ID, b.ID)
	}
	p := do(t, base, "POST", "/v1/bookings", keyAlice, map[string]any{
		"resource_id": "RAL", "start": start.Format(time.RFC3339), "end": start.Add(time.Hour).Format(time.RFC3339), "nodes": 1, "fare_class": "premium",
	}, "Idempotency-Key", "flow-1").want(t, 409).problem(t)
	if !strings.Contains(strings.ToLower(p.Detail+fmt.Sprint(p.Errors)), "idempotency") {
		t.Errorf("key reuse with another body: problem does not mention the key: %+v", p)
	}

	// Commit (twice: a safe retry), then isolation.
	c := act(t, base, keyAlice, b.ID, "commit", 200)
	if c.Status != "committed" {
		t.Fatalf("commit: %+v", c)
	}
	if c2 := act(t, base, keyAlice, b.ID, "commit", 200); c2.Status != "committed" {
		t.Fatalf("second commit: %+v", c2)
	}
	do(t, base, "GET", "/v1/bookings/"+b.ID, keyBob, nil).want(t, 404).problem(t)
	do(t, base, "POST", "/v1/bookings/"+b.ID+"/cancel", keyBob, nil).want(t, 404).problem(t)
	do(t, base, "PATCH", "/v1/bookings/"+b.ID, keyBob, map[string]int{"nodes": 1}).want(t, 404).problem(t)
	var bobList, aliceList struct {
		Data    []bookingJSON `json:"data"`
		HasMore bool          `json:"has_more"`
	}
	do(t, base, "GET", "/v1/bookings", keyBob, nil).want(t, 200).json(t, &bobList)
	if len(bobList.Data) != 0 {
		t.Fatalf("bob sees %d bookings", len(bobList.Data))
	}
	do(t, base, "GET", "/v1/bookings?status=committed", keyAlice, nil).want(t, 200).json(t, &aliceList)
	if len(aliceList.Data) != 1 || aliceList.Data[0].ID != b.ID {
		t.Fatalf("alice's committed bookings: %+v", aliceList.Data)
	}
	var got bookingJSON
	do(t, base, "GET", "/v1/bookings/"+b.ID, keyAlice, nil).want(t, 200).json(t, &got)
	if got.Status != "committed" || got.Start != start.Format(time.RFC3339) {
		t.Fatalf("GET booking: %+v", got)
	}

	// A second booking in a class with a penalty, cancelled after commit.
	q2 := map[string]any{
		"resource_id": "RAL", "earliest_start": start.Add(6 * time.Hour).Format(time.RFC3339), "latest_end": start.Add(8 * time.Hour).Format(time.RFC3339),
		"duration_seconds": 7200, "nodes": 2, "fare_class": "budget",
	}
	o2 := offersFor(t, base, keyAlice, q2)[0]
	b2 := holdOffer(t, base, keyAlice, o2.OfferID, "flow-2")
	act(t, base, keyAlice, b2.ID, "commit", 200)
	cancelled := act(t, base, keyAlice, b2.ID, "cancel", 200)
	var class pricing.FareClass
	for _, fc := range fareClasses(t, base, "RAL") {
		if fc.Name == cancelled.FareClass {
			class = fc
		}
	}
	wantPenalty, _, err := pricing.SettleCancellation(class, dec(t, b2.Price.Total), 2)
	if err != nil {
		t.Fatal(err)
	}
	wantRefund := dec(t, b2.Price.Total) // all billed is credited back, the penalty billed apart (as invoiced)
	if cancelled.Status != "cancelled" || cancelled.Penalty == nil || cancelled.Refund == nil {
		t.Fatalf("cancel: %+v", cancelled)
	}
	if !dec(t, *cancelled.Penalty).Equal(wantPenalty) || !dec(t, *cancelled.Refund).Equal(wantRefund) {
		t.Fatalf("cancel of %s (%s class, rate %s): penalty %s refund %s, want %s and %s", b2.Price.Total, class.Name,
			class.PenaltyRate, *cancelled.Penalty, *cancelled.Refund, wantPenalty, wantRefund)
	}
	if wantPenalty.IsZero() {
		t.Fatalf("the cancelled booking's class %q has no penalty; the test wants one", class.Name)
	}
	act(t, base, keyAlice, b2.ID, "commit", 409)

	// Billing: alice's invoice has the two charges, the refund and the penalty.
	do(t, base, "GET", "/v1/invoices?account_id=alice", keyAlice, nil).want(t, 403).problem(t)
	var inv struct {
		Data    []invoiceJSON `json:"data"`
		HasMore bool          `json:"has_more"`
	}
	do(t, base, "GET", "/v1/invoices?account_id=alice", keyBilling, nil).want(t, 200).json(t, &inv)
	lines := map[string]decimal.Decimal{}
	total := decimal.Zero
	for _, in := range inv.Data {
		if in.AccountID != "alice" || in.Currency != "GRD" {
			t.Fatalf("invoice %+v", in)
		}
		for _, l := range in.Lines {
			lines[l.Kind+" "+l.BookingID] = lines[l.Kind+" "+l.BookingID].Add(dec(t, l.Amount))
		}
		total = total.Add(dec(t, in.Total))
	}
	want := map[string]decimal.Decimal{
		"charge " + b.ID:                dec(t, b.Price.Total),
		"charge " + b2.ID:               dec(t, b2.Price.Total),
		"refund " + b2.ID:               dec(t, b2.Price.Total).Neg(),
		"cancellation_penalty " + b2.ID: wantPenalty,
	}
	if len(lines) != len(want) {
		t.Fatalf("invoice lines %v, want %v", lines, want)
	}
	sum := decimal.Zero
	for k, v := range want {
		if !lines[k].Equal(v) {
			t.Fatalf("invoice line %s = %s, want %s (all: %v)", k, lines[k], v, lines)
		}
		sum = sum.Add(v)
	}
	if !total.Equal(sum) {
		t.Fatalf("invoice totals %s, want %s", total, sum)
	}
	var entries struct {
		Data []struct {
			Kind      string `json:"kind"`
			BookingID string `json:"booking_id"`
		} `json:"data"`
	}
	do(t, base, "GET", "/v1/ledger/entries?account_id=alice", keyBilling, nil).want(t, 200).json(t, &entries)
	kinds := map[string]int{}
	for _, p := range entries.Data {
		kinds[p.Kind+" "+p.BookingID]++
	}
	wantKinds := map[string]int{"charge " + b.ID: 1, "charge " + b2.ID: 1, "refund " + b2.ID: 1, "cancellation_penalty " + b2.ID: 1}
	if fmt.Sprint(kinds) != fmt.Sprint(wantKinds) {
		t.Fatalf("alice's ledger postings %v, want %v", kinds, wantKinds)
	}

	// Provider: booking control per period, with alice's premium booking.
	do(t, base, "GET", "/v1/resources/RAL/limits?from="+start.Format(time.RFC3339)+"&to="+start.Add(time.Hour).Format(time.RFC3339), keyAlice, nil).want(t, 403).problem(t)
	var lim struct {
		ResourceID string `json:"resource_id"`
		Periods    []struct {
			Period           string         `json:"period"`
			Capacity         int            `json:"capacity"`
			OverbookingLimit int            `json:"overbooking_limit"`
			BookingLimits    map[string]int `json:"booking_limits"`
			Bookings         map[string]int `json:"bookings"`
		} `json:"periods"`
	}
	do(t, base, "GET", "/v1/resources/RAL/limits?from="+start.Format(time.RFC3339)+"&to="+start.Add(time.Hour).Format(time.RFC3339), keyProvider, nil).want(t, 200).json(t, &lim)
	if lim.ResourceID != "RAL" || len(lim.Periods) == 0 {
		t.Fatalf("limits report %+v", lim)
	}
	for _, p := range lim.Periods {
		if p.Capacity != 41 || p.OverbookingLimit < 41 || p.BookingLimits["premium"] != p.OverbookingLimit || p.Bookings["premium"] != 4 {
			t.Fatalf("limits period %+v: want capacity 41, premium limit = overbooking limit, 4 premium nodes booked", p)
		}
	}

	// Ops: metrics counted the requests and the transitions.
	m := do(t, base, "GET", "/metrics", "", nil).want(t, 200)
	for _, want := range []string{`slotfare_http_requests_total{method="POST",route="/v1/bookings/:id/commit",status="200"}`, `slotfare_booking_transitions_total{from="held",to="committed"} 2`, "slotfare_http_request_duration_seconds_bucket"} {
		if !strings.Contains(string(m.body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// Structured logs: one JSON line per request with its request id, which
	// the response carries too.
	rid := do(t, base, "GET", "/v1/bookings/"+b.ID, keyAlice, nil).want(t, 200).header.Get("X-Request-Id")
	found := false
	for wait := time.Now().Add(5 * time.Second); !found && time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
		// Request lines are flushed every 100 ms (serve's logWriter).
		for _, line := range strings.Split(s.stderr.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["request_id"] == rid && rid != "" {
				found = rec["route"] == "/v1/bookings/:id" && rec["account_id"] == "alice" && rec["status"] == float64(200)
			}
		}
	}
	if !found {
		t.Errorf("no JSON log line for request %q with route, account and status:\n%s", rid, tail(s.stderr.String(), 2000))
	}

	var doc map[string]any
	do(t, base, "GET", "/openapi.json", "", nil).want(t, 200).json(t, &doc)
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.") {
		t.Errorf("openapi %v", doc["openapi"])
	}
}
