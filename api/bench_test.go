package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare/booking"
	"slotfare/booking/memstore"
	"slotfare/booking/service"
)

var bg = context.Background()

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
	p, err := svc.Authenticate(context.Background(), kAlice)
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

// BenchmarkFlow is bench api's flow (offers for an hour, hold the solution
// by its offer id, commit it) through echo without a network, on the
// in-memory store: the service's and the HTTP layer's own CPU per flow,
// which every store pays, and its allocations. "service" makes the same
// calls on the service directly and encodes their answers.
func BenchmarkFlow(b *testing.B) {
	day0 := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
	hour := func(i int) time.Time { return day0.Add(time.Duration(i%(80*24)) * time.Hour) }
	b.Run("http", func(b *testing.B) {
		e, _ := newMemoryServer(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			start := hour(i)
			q := `{"resource_id":"Bologna","earliest_start":"` + start.Format(time.RFC3339) + `","latest_end":"` +
				start.Add(time.Hour).Format(time.RFC3339) + `","duration_seconds":3600,"nodes":1,"fare_class":"premium"}`
			rec := flowCall(b, e, "/v1/offers", q, "", 200)
			var offers struct {
				Offers []struct {
					OfferID string `json:"offer_id"`
				} `json:"offers"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &offers); err != nil || len(offers.Offers) == 0 {
				b.Fatalf("offers: %v %s", err, rec.Body)
			}
			rec = flowCall(b, e, "/v1/bookings", `{"offer_id":"`+offers.Offers[0].OfferID+`"}`, fmt.Sprint("k", i), 201)
			id := strings.TrimPrefix(rec.Header().Get("Location"), "/v1/bookings/")
			flowCall(b, e, "/v1/bookings/"+id+"/commit", "", "", 200)
		}
	})
	b.Run("service", func(b *testing.B) {
		_, svc := newMemoryServer(b)
		p, err := svc.Authenticate(context.Background(), kAlice)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			start := hour(i)
			d, n := int64(3600), 1
			offs, err := svc.Offers(bg, p, booking.OfferQuery{ResourceID: "Bologna", EarliestStart: start, LatestEnd: start.Add(time.Hour),
				DurationSeconds: &d, Nodes: &n, FareClass: "premium"})
			if err != nil || len(offs) == 0 {
				b.Fatal(err, len(offs))
			}
			if _, err := json.Marshal(offs); err != nil {
				b.Fatal(err)
			}
			bk, _, err := svc.Hold(bg, p, booking.HoldRequest{OfferID: offs[0].OfferID}, booking.Idempotency{Key: fmt.Sprint("k", i)})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bk.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
			bk, err = svc.Commit(bg, p, bk.ID)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bk.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// newMemoryServer is newTestServer on the in-memory store.
func newMemoryServer(b *testing.B) (*echo.Echo, *service.Service) {
	return newServerOn(b, b.TempDir(), memstore.New())
}

// flowCall runs one POST of the flow, without checkAnswer's validation
// (a benchmark measures the server, not the checks), and fails unless it
// answers want.
func flowCall(b *testing.B, e *echo.Echo, path, body, idem string, want int) *httptest.ResponseRecorder {
	var hdr []string
	if idem != "" {
		hdr = []string{"Idempotency-Key", idem}
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, call{"POST", path, kAlice, body, hdr}.request())
	if rec.Code != want {
		b.Fatalf("POST %s: %d, want %d: %s", path, rec.Code, want, rec.Body)
	}
	return rec
}
