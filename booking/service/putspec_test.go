package service_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/service"
)

// resourceSpec is the basics of a PUT /v1/resources/{id} body (a field
// left out keeps its value, or a new resource's default).
type resourceSpec struct {
	Nodes       int                `json:"nodes"`
	BaseCost    decimal.Decimal    `json:"base_cost"`
	Currency    string             `json:"currency,omitempty"`
	TimeZone    string             `json:"time_zone"`
	SlotSeconds *int               `json:"slot_seconds,omitempty"`
	HoldSeconds *int               `json:"hold_seconds,omitempty"`
	HoldLimits  *config.HoldLimits `json:"hold_limits,omitempty"`
}

// putSpec PUTs spec as the API does, through PutResourceConfig.
func putSpec(s *service.Service, ctx context.Context, p booking.Principal, id string, spec resourceSpec) (config.Resource, bool, error) {
	body, err := json.Marshal(spec)
	if err != nil {
		return config.Resource{}, false, err
	}
	return s.PutResourceConfig(ctx, p, id, body)
}

// TestPutResourceNamesTheField: a PUT body with a bad basic field is
// Invalid naming that field, and stores nothing.
func TestPutResourceNamesTheField(t *testing.T) {
	h := newHarness(t, testConfig())
	ok := resourceSpec{Nodes: 10, BaseCost: decimal.RequireFromString("0.49"), Currency: "GRD", TimeZone: "Europe/London"}
	neg, big, seven := -1, 1<<30, 7
	cases := []struct {
		mut   func(*resourceSpec)
		field string
	}{
		{func(s *resourceSpec) { s.Nodes = 0 }, "nodes"},
		{func(s *resourceSpec) { s.BaseCost = decimal.Zero }, "base_cost"},
		{func(s *resourceSpec) { s.Currency = "grd" }, "currency"},
		{func(s *resourceSpec) { s.TimeZone = "Mars/Olympus" }, "time_zone"},
		{func(s *resourceSpec) { s.TimeZone = "" }, "time_zone"},
		{func(s *resourceSpec) { s.SlotSeconds = &neg }, "slot_seconds"},
		{func(s *resourceSpec) { s.SlotSeconds = &seven }, "slot_seconds"}, // does not divide a day
		{func(s *resourceSpec) { s.HoldSeconds = &big }, "hold_seconds"},
	}
	for _, c := range cases {
		s := ok
		c.mut(&s)
		_, _, err := putSpec(h.svc, bg, provider, "NEW", s)
		if slotfare.KindOf(err) != slotfare.Invalid || !strings.HasSuffix(slotfare.FieldOf(err), c.field) {
			t.Errorf("%s: %v (field %q)", c.field, err, slotfare.FieldOf(err))
		}
	}
	if _, err := h.svc.Resource(bg, provider, "NEW"); slotfare.KindOf(err) != slotfare.NotFound {
		t.Errorf("a refused PUT left a resource: %v", err)
	}
	if _, _, err := putSpec(h.svc, bg, provider, "NEW", ok); err != nil {
		t.Errorf("the good body: %v", err)
	}
}
