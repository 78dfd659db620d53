package config

import (
	"reflect"
	"testing"

	"slotfare"
)

func TestOverbookingSpecValidate(t *testing.T) {
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
