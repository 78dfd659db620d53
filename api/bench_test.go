package api

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkGetBooking measures what the HTTP layer adds to one request:
// GET /v1/bookings/{id} through echo (auth, role, metrics, logging, request
// id, timeout, JSON) against the service call it wraps. No network: the
// difference is the api package's own cost per request.
func BenchmarkGetBooking(b *testing.B) {
	e, svc := newTestServer(b)
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + 10*time.Hour)
	body := `{"resource_id":"RAL","start":"` + start.Format(time.RFC3339) + `","end":"` + start.Add(time.Hour).Format(time.RFC3339) + `","nodes":1,"fare_class":"premium"}`
	rec := call{"POST", "/v1/bookings", kAlice, body, []string{"Idempotency-Key", "bench"}}.run(e)
	if rec.Code != 201 {
		b.Fatalf("hold: %d %s", rec.Code, rec.Body)
	}
	id := rec.Header().Get("Location")[len("/v1/bookings/"):]
	p, err := svc.Authenticate(kAlice)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("service", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bk, err := svc.Get(context.Background(), p, id)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bk.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("http", func(b *testing.B) {
		b.ReportAllocs()
		req := httptest.NewRequest("GET", "/v1/bookings/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+kAlice)
		for b.Loop() {
			w := httptest.NewRecorder()
			e.ServeHTTP(w, req)
			if w.Code != 200 || !strings.Contains(w.Body.String(), id) {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	})
}
