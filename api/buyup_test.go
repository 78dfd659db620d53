package api

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestBuyUpOffersOverHTTP: on the demo's RAL at a Monday's peak, once
// budget is full an offer query for budget answers offers in business
// marked "requested_fare_class":"budget" (seed 004 Sec. 7.4), a query
// without a class answers the cheapest open class unmarked, and a held
// buy-up offer whose business class filled meanwhile is 409 naming the
// class, with nothing admitted past business's limit.
func TestBuyUpOffersOverHTTP(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)}
	e := clockedServer(t, clk)
	s := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC) // 08:00 London: peak
	from, to := s.Format(time.RFC3339), s.Add(time.Hour).Format(time.RFC3339)
	type limits struct {
		Periods []struct {
			BookingLimits map[string]int `json:"booking_limits"`
			Bookings      map[string]int `json:"bookings"`
		} `json:"periods"`
	}
	readLimits := func() limits {
		var l limits
		rec := call{"GET", "/v1/resources/RAL/limits?from=" + from + "&to=" + to, kProv, "", nil}.must(t, e, 200)
		if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil || len(l.Periods) != 1 {
			t.Fatalf("limits: %s", rec.Body)
		}
		return l
	}
	l := readLimits().Periods[0].BookingLimits
	b2, b3 := l["business"], l["budget"]
	if b3 <= 0 || b2 <= b3 {
		t.Fatalf("limits %v: want budget open below business", l)
	}
	book := func(class string, nodes int) {
		body := fmt.Sprintf(`{"resource_id":"RAL","start":%q,"end":%q,"nodes":%d,"fare_class":%q}`, from, to, nodes, class)
		rec := call{"POST", "/v1/bookings", kAlice, body, []string{"Idempotency-Key", class}}.must(t, e, 201)
		var b struct {
			ID string `json:"booking_id"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
			t.Fatal(err)
		}
		call{"POST", "/v1/bookings/" + b.ID + "/commit", kAlice, "", nil}.must(t, e, 200)
	}
	book("budget", b3)
	type offers struct {
		Offers []struct {
			OfferID   string  `json:"offer_id"`
			FareClass string  `json:"fare_class"`
			Requested *string `json:"requested_fare_class"`
		} `json:"offers"`
	}
	query := func(class string) offers {
		body := fmt.Sprintf(`{"resource_id":"RAL","earliest_start":%q,"latest_end":%q,"duration_seconds":3600,"nodes":1%s}`, from, to, class)
		var o offers
		rec := call{"POST", "/v1/offers", kAlice, body, nil}.must(t, e, 200)
		if err := json.Unmarshal(rec.Body.Bytes(), &o); err != nil || len(o.Offers) == 0 {
			t.Fatalf("offers %s: %s", class, rec.Body)
		}
		return o
	}
	up := query(`,"fare_class":"budget"`)
	for _, o := range up.Offers {
		if o.FareClass != "business" || o.Requested == nil || *o.Requested != "budget" {
			t.Fatalf("budget closed: offer in %s requested %v, want business upgrading budget", o.FareClass, o.Requested)
		}
	}
	for _, o := range query("").Offers {
		if o.FareClass != "business" || o.Requested != nil {
			t.Fatalf("no class asked: offer in %s requested %v, want business unmarked", o.FareClass, o.Requested)
		}
	}
	for _, o := range query(`,"fare_class":"premium"`).Offers {
		if o.FareClass != "premium" || o.Requested != nil {
			t.Fatalf("premium open: offer in %s requested %v", o.FareClass, o.Requested)
		}
	}
	book("business", b2-b3) // business is full too
	call{"POST", "/v1/bookings", kAlice, `{"offer_id":"` + up.Offers[0].OfferID + `"}`, []string{"Idempotency-Key", "up"}}.
		wantProblem(t, e, 409, "", `fare class \"business\"`)
	if got := readLimits().Periods[0].Bookings; got["business"] != b2-b3 || got["budget"] != b3 {
		t.Fatalf("bookings %v: want business %d budget %d", got, b2-b3, b3)
	}
}
