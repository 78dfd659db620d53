package booking

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

func TestBookingJSON(t *testing.T) {
	exp := time.Date(2026, 11, 24, 10, 10, 0, 0, time.FixedZone("X", 3600))
	pen := decimal.RequireFromString("1.5")
	b := Booking{
		ID: "bk_1", AccountID: "alice", Status: Cancelled, HoldExpiresAt: &exp, ResourceID: "RAL",
		Start: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
		Nodes: 4, FareClass: "budget",
		Price:   Price{Base: decimal.RequireFromString("12.3"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("12.3"), Currency: "GRD"},
		Penalty: &pen, CreatedAt: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC),
	}
	got, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"booking_id":"bk_1","account_id":"alice","status":"cancelled","hold_expires_at":"2026-11-24T09:10:00Z",` +
		`"resource_id":"RAL","start":"2026-11-25T09:00:00Z","end":"2026-11-25T10:00:00Z","nodes":4,"fare_class":"budget",` +
		`"price":{"base":"12.30","delay_premium":"0.00","total":"12.30","currency":"GRD"},"penalty":"1.50",` +
		`"created_at":"2026-11-24T10:00:00Z","updated_at":"2026-11-24T10:00:00Z","checked_in":false}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	var back Booking
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if string(again) != want {
		t.Fatalf("round trip: %s", again)
	}
	if !back.Penalty.Equal(pen) || back.Refund != nil || !back.HoldExpiresAt.Equal(exp) {
		t.Fatalf("round trip lost fields: %+v", back)
	}
}

func TestPageJSON(t *testing.T) {
	got, _ := json.Marshal(Page[int]{})
	if string(got) != `{"data":[],"has_more":false,"next_cursor":null}` {
		t.Fatal(string(got))
	}
	got, _ = json.Marshal(Page[int]{Data: []int{1}, HasMore: true, NextCursor: "c"})
	if string(got) != `{"data":[1],"has_more":true,"next_cursor":"c"}` {
		t.Fatal(string(got))
	}
}

func TestOfferJSON(t *testing.T) {
	o := Offer{OfferID: "o", ResourceID: "RAL", Start: time.Unix(0, 0), End: time.Unix(60, 0), Nodes: 1, FareClass: "premium",
		Solution: true, ExpiresAt: time.Unix(300, 0), Price: Price{Base: decimal.New(1, 0), DelayPremium: decimal.Zero, Total: decimal.New(1, 0), Currency: "JPY"}}
	got, _ := json.Marshal(o)
	want := `{"offer_id":"o","resource_id":"RAL","start":"1970-01-01T00:00:00Z","end":"1970-01-01T00:01:00Z","nodes":1,` +
		`"fare_class":"premium","solution":true,"expires_at":"1970-01-01T00:05:00Z","price":{"base":"1","delay_premium":"0","total":"1","currency":"JPY"}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestSpecValidate(t *testing.T) {
	ok := ResourceSpec{Nodes: 10, BaseCost: decimal.RequireFromString("0.49"), Currency: "GRD", TimeZone: "Europe/London"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	neg, big := -1, 1<<30
	cases := []struct {
		mut   func(*ResourceSpec)
		field string
	}{
		{func(s *ResourceSpec) { s.Nodes = 0 }, "nodes"},
		{func(s *ResourceSpec) { s.BaseCost = decimal.Zero }, "base_cost"},
		{func(s *ResourceSpec) { s.Currency = "grd" }, "currency"},
		{func(s *ResourceSpec) { s.TimeZone = "Mars/Olympus" }, "time_zone"},
		{func(s *ResourceSpec) { s.TimeZone = "" }, "time_zone"},
		{func(s *ResourceSpec) { s.SlotSeconds = &neg }, "slot_seconds"},
		{func(s *ResourceSpec) { s.HoldSeconds = &big }, "hold_seconds"},
	}
	for _, c := range cases {
		s := ok
		c.mut(&s)
		err := s.Validate()
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Errorf("%s: %v", c.field, err)
		}
	}
	ob := []struct {
		spec  OverbookingSpec
		field string
	}{
		{OverbookingSpec{"risk", 0, "dcf"}, ""},
		{OverbookingSpec{"service-level", 0.01, "lottery"}, ""},
		{OverbookingSpec{"service-level", 0, "lottery"}, "service_level"},
		{OverbookingSpec{"often", 0, "lottery"}, "policy"},
		{OverbookingSpec{"none", 0, "coin"}, "denial"},
		{OverbookingSpec{"none", 1.5, "dcf"}, "service_level"},
	}
	for _, c := range ob {
		err := c.spec.Validate()
		if c.field == "" {
			if err != nil {
				t.Errorf("%v: %v", c.spec, err)
			}
			continue
		}
		if !reflect.DeepEqual([]any{slotfare.KindOf(err), slotfare.FieldOf(err)}, []any{slotfare.Invalid, c.field}) {
			t.Errorf("%v: %v", c.spec, err)
		}
	}
}
