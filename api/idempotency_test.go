package api

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"slotfare/booking"
)

// TestIdempotencyCanonical: a retry with the same Idempotency-Key and the
// same request replays the first answer however the JSON is laid out (key
// order, whitespace, a time with another offset or fractional zeros), and
// the same key with another request is still 409 (issue 9, defect 11: the
// raw bytes were fingerprinted).
func TestIdempotencyCanonical(t *testing.T) {
	e, _ := newTestServer(t)
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + 10*time.Hour)
	end := start.Add(time.Hour)
	z := func(t time.Time) string { return t.Format(time.RFC3339) }
	key := []string{"Idempotency-Key", "canon-1"}
	first := call{"POST", "/v1/bookings", kAlice, `{"resource_id":"RAL","start":"` + z(start) + `","end":"` + z(end) + `","nodes":2,"fare_class":"premium"}`, key}.run(e)
	if first.Code != 201 {
		t.Fatalf("hold: %d %s", first.Code, first.Body)
	}
	var b struct {
		ID string `json:"booking_id"`
	}
	if err := json.Unmarshal(first.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	plus2 := time.FixedZone("", 2*3600)
	same := []string{
		`{"resource_id":"RAL","start":"` + z(start) + `","end":"` + z(end) + `","nodes":2,"fare_class":"premium"}`,
		"{ \"fare_class\" : \"premium\",\n\t\"nodes\": 2, \"end\":\"" + z(end) + `", "start":"` + z(start) + `", "resource_id":"RAL" }`,
		`{"resource_id":"RAL","start":"` + start.In(plus2).Format(time.RFC3339) + `","end":"` + end.In(plus2).Format(time.RFC3339) + `","nodes":2,"fare_class":"premium"}`,
		`{"resource_id":"RAL","start":"` + start.Format("2006-01-02T15:04:05.000Z") + `","end":"` + end.Format("2006-01-02T15:04:05.000000Z07:00") + `","nodes":2,"fare_class":"premium"}`,
	}
	for _, body := range same {
		rec := call{"POST", "/v1/bookings", kAlice, body, key}.run(e)
		if rec.Code != 201 || rec.Header().Get("Idempotent-Replayed") != "true" || rec.Body.String() != first.Body.String() {
			t.Fatalf("retry %s: %d replayed=%q %s, want the first answer replayed", body, rec.Code, rec.Header().Get("Idempotent-Replayed"), rec.Body)
		}
	}
	other := []string{
		`{"resource_id":"RAL","start":"` + z(start) + `","end":"` + z(end) + `","nodes":3,"fare_class":"premium"}`,
		`{"resource_id":"RAL","start":"` + z(start.Add(time.Second)) + `","end":"` + z(end) + `","nodes":2,"fare_class":"premium"}`,
		`{"resource_id":"RAL","start":"` + z(start) + `","end":"` + z(end) + `","nodes":2,"fare_class":"budget"}`,
		`{"resource_id":"GRIDKA","start":"` + z(start) + `","end":"` + z(end) + `","nodes":2,"fare_class":"premium"}`,
	}
	for _, body := range other {
		c := call{"POST", "/v1/bookings", kAlice, body, key}
		rec := c.run(e)
		p := checkProblem(t, c, rec)
		if rec.Code != 409 || len(p.Errors) == 0 || p.Errors[0].Field != IdempotencyKeyHeader {
			t.Fatalf("same key, other request %s: %d %s, want 409 naming the key", body, rec.Code, rec.Body)
		}
	}
	// The fingerprint is the decoded request's: equal requests, equal
	// fingerprints; it never equals a raw-body (legacy) fingerprint.
	req := booking.HoldRequest{ResourceID: "RAL", Start: start, End: end, Nodes: 2, FareClass: "premium"}
	req2 := req
	req2.Start, req2.End = start.In(plus2), end.In(plus2)
	if holdFingerprint("POST", "/v1/bookings", req) != holdFingerprint("POST", "/v1/bookings", req2) {
		t.Fatal("the same instants in another zone fingerprint differently")
	}
	if holdFingerprint("POST", "/v1/bookings", req) == holdFingerprint("POST", "/v1/bookings", booking.HoldRequest{OfferID: "RAL"}) {
		t.Fatal("fields are not delimited")
	}
}

// TestIdempotencyLegacyFingerprint: a key stored before the upgrade, with
// the raw body's fingerprint, still replays a retry of the very same bytes.
func TestIdempotencyLegacyFingerprint(t *testing.T) {
	e, svc := newTestServer(t)
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + 12*time.Hour)
	body := `{"resource_id":"RAL", "start":"` + start.Format(time.RFC3339) + `","end":"` + start.Add(time.Hour).Format(time.RFC3339) + `","nodes":1,"fare_class":"premium"}`
	alice, err := svc.Authenticate(context.Background(), kAlice)
	if err != nil {
		t.Fatal(err)
	}
	old, _, err := svc.Hold(context.Background(), alice,
		booking.HoldRequest{ResourceID: "RAL", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium"},
		booking.Idempotency{Key: "before-upgrade", Fingerprint: legacyFingerprint("POST", "/v1/bookings", []byte(body))})
	if err != nil {
		t.Fatal(err)
	}
	rec := call{"POST", "/v1/bookings", kAlice, body, []string{"Idempotency-Key", "before-upgrade"}}.run(e)
	if rec.Code != 201 || rec.Header().Get("Idempotent-Replayed") != "true" || rec.Header().Get("Location") != "/v1/bookings/"+old.ID {
		t.Fatalf("retry of a pre-upgrade request: %d %s", rec.Code, rec.Body)
	}
	other := `{"resource_id":"RAL","start":"` + start.Format(time.RFC3339) + `","end":"` + start.Add(time.Hour).Format(time.RFC3339) + `","nodes":2,"fare_class":"premium"}`
	if rec := (call{"POST", "/v1/bookings", kAlice, other, []string{"Idempotency-Key", "before-upgrade"}}).run(e); rec.Code != 409 {
		t.Fatalf("pre-upgrade key with another request: %d %s, want 409", rec.Code, rec.Body)
	}
}
