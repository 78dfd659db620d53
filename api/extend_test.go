package api

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking/boltstore"
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/service"
)

// fakeClock is a clock a test sets.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// clockedServer is newTestServer on the demo configuration with the
// service's clock set by the test.
func clockedServer(t *testing.T, clk *fakeClock) *echo.Echo {
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
	return e
}

// TestExtensionOverHTTP: a PATCH with a later end extends a checked-in
// booking once it has started (200, billed as a second charge line); one
// that does not fit is 409 naming end with max_end; one of an ended
// booking is 409 naming end.
func TestExtensionOverHTTP(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)}
	e := clockedServer(t, clk)
	s := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return s.Add(d).Format(time.RFC3339) }
	hold := func(key string, from, to time.Duration, nodes string) string {
		rec := call{"POST", "/v1/bookings", key, `{"resource_id":"RAL","start":"` + at(from) + `","end":"` + at(to) + `","nodes":` + nodes + `,"fare_class":"premium"}`,
			[]string{"Idempotency-Key", key + at(from)}}.must(t, e, 201)
		var b struct {
			ID string `json:"booking_id"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
			t.Fatal(err)
		}
		call{"POST", "/v1/bookings/" + b.ID + "/commit", key, "", nil}.must(t, e, 200)
		return b.ID
	}
	id := hold(kAlice, 0, time.Hour, "4")
	clk.Set(s.Add(-30 * time.Minute))
	call{"POST", "/v1/bookings/" + id + "/checkin", kAlice, "", nil}.must(t, e, 200)
	clk.Set(s.Add(time.Minute))
	rec := call{"PATCH", "/v1/bookings/" + id, kAlice, `{"end":"` + at(2*time.Hour) + `"}`, nil}.must(t, e, 200)
	var b struct {
		End time.Time `json:"end"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || !b.End.Equal(s.Add(2*time.Hour)) {
		t.Fatalf("extended: %s", rec.Body)
	}
	// Bob's booking from 2h30 leaves no room for alice's 4 nodes after it
	// (RAL takes 42 nodes of premium bookings at peak).
	hold(kBob, 150*time.Minute, 210*time.Minute, "39")
	p := call{"PATCH", "/v1/bookings/" + id, kAlice, `{"end":"` + at(3*time.Hour) + `"}`, nil}.wantProblem(t, e, 409, "end", "max_end")
	if p.MaxEnd == nil || !p.MaxEnd.Equal(s.Add(150*time.Minute)) {
		t.Fatalf("max_end %v, want %s", p.MaxEnd, at(150*time.Minute))
	}
	call{"PATCH", "/v1/bookings/" + id, kAlice, `{"end":"` + at(2*time.Hour) + `","nodes":5}`, nil}.wantProblem(t, e, 422, "nodes")
	lines := call{"GET", "/v1/invoices?account_id=alice", kBill, "", nil}.must(t, e, 200)
	var inv struct {
		Data []struct {
			Lines []struct {
				Kind      string `json:"kind"`
				BookingID string `json:"booking_id"`
			} `json:"lines"`
		} `json:"data"`
	}
	if err := json.Unmarshal(lines.Body.Bytes(), &inv); err != nil {
		t.Fatal(err)
	}
	charges := 0
	for _, d := range inv.Data {
		for _, l := range d.Lines {
			if l.BookingID == id && l.Kind == "charge" {
				charges++
			}
		}
	}
	if charges != 2 {
		t.Fatalf("%d charge lines for the booking, want its charge and its extension: %s", charges, lines.Body)
	}
	clk.Set(s.Add(2 * time.Hour))
	call{"PATCH", "/v1/bookings/" + id, kAlice, `{"end":"` + at(3*time.Hour) + `"}`, nil}.wantProblem(t, e, 409, "end", "ended")
}
