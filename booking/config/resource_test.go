package config

import (
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
)

func TestSpecValidate(t *testing.T) {
	ok := ResourceSpec{Nodes: 10, BaseCost: decimal.RequireFromString("0.49"), Currency: "GRD", TimeZone: "Europe/London"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	neg, big, seven := -1, 1<<30, 7
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
		{func(s *ResourceSpec) { s.SlotSeconds = &seven }, "slot_seconds"}, // does not divide a day
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
		{OverbookingSpec{"service-level", 0, "lottery"}, ""}, // left out: DefaultServiceLevel
		{OverbookingSpec{"", 0, ""}, ""},                     // every field left out: DefaultOverbooking
		{OverbookingSpec{"service-level", 0.51, "lottery"}, "service_level"},
		{OverbookingSpec{"service-level", -0.01, "lottery"}, "service_level"},
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
